export { isNetworkError } from './network-error';

export { groupCommit } from './group-commit';

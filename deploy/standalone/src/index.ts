export {
  composeSystem,
  systemConfig,
  type SystemSettings,
  type SystemStores,
  type SystemOptions,
  type ComposedSystem,
} from './system';
export { API_ROUTES, API_VERSION } from './api-routes';
export { apiDocsConfig } from './api-docs-config';

export {
  composeSystem,
  systemConfig,
  type SystemSettings,
  type SystemStores,
  type SystemOptions,
  type ComposedSystem,
} from './system';

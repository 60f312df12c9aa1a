/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { webhookDispatcherConfig, dispatchEnv, type WebhookDispatcherConfig } from './config';
export {
  composeWebhookDispatcher,
  webhookUserAgent,
  type WebhookDispatcherSettings,
  type WebhookDispatcherStores,
  type WebhookDispatcherSeams,
} from './wiring';
export { RETRY_DELAYS_MS, RETRY_HORIZON_MS } from './retry-schedule';
export type { Unseal } from './signing-secrets';

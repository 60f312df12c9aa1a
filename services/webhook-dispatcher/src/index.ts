/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { webhookDispatcherConfig, webhooksEnv, type WebhookDispatcherConfig } from './config';
export {
  composeWebhookDispatcher,
  webhookUserAgent,
  type WebhookDispatcherSettings,
  type WebhookDispatcherStores,
  type WebhookDispatcherSeams,
} from './wiring';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-message';
export { RETRY_DELAYS_MS, RETRY_HORIZON_MS } from './retry-schedule';
export { plainSecrets, type Unseal } from './signing-secrets';

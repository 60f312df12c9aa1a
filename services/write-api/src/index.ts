/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { WRITE_API_ROUTES } from './write-api-routes';
export {
  composeWriteApi,
  composeWebhooksApi,
  composeDomainsApi,
  type WriteApiSettings,
  type WriteApiStores,
} from './wiring';
export { registerWebhookRoutes, type WebhooksApiDeps } from './webhooks/webhooks-api';
export { memoryWebhookStore } from './webhooks/stores/memory-webhook-store';
export { writeApiConfig, type WriteApiConfig } from './config';
export { createClaimSettler, type SettleOutcome } from './links/stores/settle-claims';
export { postgresClaimStore, type Claim, type ClaimStore } from './links/stores/claims';
export { requestHash } from './idempotency/idempotency-key';

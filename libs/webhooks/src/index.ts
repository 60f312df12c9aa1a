export {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  WEBHOOK_MESSAGE_TYPES,
  isWebhookEventType,
  type WebhookEventType,
  type WebhookMessageType,
} from './event-types';
export { newWebhookSecret, webhookSecretKey, SECRET_PREFIX } from './webhook-secret';
export { sealSecret, openSealedSecret, keyId, SealedSecretError } from './sealed-secret';
export { parseEncryptionKey, sealingKey, webhooksEncryptionKey, GENERATED_KEY_NAME } from './encryption-key';
export { webhooksEnv, type WebhooksEnv } from './webhooks-settings';
export { WEBHOOK_LIMITS } from './webhook-limits';
export { WEBHOOK_ERRORS, webhookDisabled, webhookNotFound } from './webhook-errors';
export {
  webhookSchema,
  createdWebhookSchema,
  rotatedSecretSchema,
  deliveryAttemptSchema,
  replaySchema,
  webhookEventTypeSchema,
  responseSchema,
  WEBHOOK_EXAMPLE,
  type Webhook,
  type DeliveryAttempt,
} from './webhook-schema';
export { webhookResource, type WebhookRow } from './webhook-resource';
export { newMessageId } from './message-id';

/**
 * The types of message a webhook is sent. An endpoint subscribes to a
 * non-empty subset of the link events; `webhook.test` is sent only when asked
 * for (`POST /api/v1/webhooks/{id}/test`), whatever the subscription.
 */
export const WEBHOOK_EVENT_TYPES = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every `type` a delivered payload may carry. */
export const WEBHOOK_MESSAGE_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type WebhookMessageType = (typeof WEBHOOK_MESSAGE_TYPES)[number];

export const isWebhookEventType = (value: unknown): value is WebhookEventType =>
  typeof value === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);

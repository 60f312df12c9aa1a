import { booleanFlag, httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import { z } from 'zod';

/** The webhook dispatcher's own settings, shared with the single-process deployment. */
export const webhooksEnv = z.object({
  /** Lets webhooks be delivered to loopback and private addresses. For local testing only. */
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Lets webhooks be delivered over plain http. For local testing only: https otherwise. */
  WEBHOOKS_ALLOW_HTTP: booleanFlag.default(false),
  /** Delivery attempts under way at once, in all. */
  WEBHOOKS_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(512),
  /** Delivery attempts under way at once to one endpoint: what a slow endpoint can hold. */
  WEBHOOKS_PER_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
});

export const webhookDispatcherConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape)
  .extend(webhooksEnv.shape);
export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherConfig>;

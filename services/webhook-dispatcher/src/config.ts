import { httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import { webhooksEnv } from '@shortlink/webhooks';
import { z } from 'zod';

/** The dispatcher's own settings beside the webhooks settings it shares with the write API (libs/webhooks). */
export const dispatchEnv = z.object({
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
  .extend(webhooksEnv.shape)
  .extend(dispatchEnv.shape);
export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherConfig>;

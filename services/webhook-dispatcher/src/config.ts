import { httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import { webhooksEnv } from '@shortlink/webhooks';
import { z } from 'zod';
import { RETRY_DELAYS_MS } from './retry-schedule';

/** The dispatcher's own settings beside the webhooks settings it shares with the write API (libs/webhooks). */
export const dispatchEnv = z.object({
  /** Delivery attempts under way at once, in all. */
  WEBHOOKS_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(512),
  /** Delivery attempts under way at once to one endpoint: what a slow endpoint can hold. */
  WEBHOOKS_PER_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * Seconds to wait after each failed attempt, comma-separated (as Svix's retry_schedule): one retry per entry,
   * never past 24 hours after the event. Default the Standard Webhooks-style 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
   */
  WEBHOOKS_RETRY_SCHEDULE: z
    .string()
    .trim()
    .regex(
      /^\d{1,6}(\s*,\s*\d{1,6}){0,19}$/,
      'expected 1 to 20 whole seconds, comma-separated (for example 5,300,1800)',
    )
    .transform((text) => text.split(',').map((seconds) => Number(seconds.trim()) * 1000))
    .default(() => [...RETRY_DELAYS_MS]),
});

export const webhookDispatcherConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape)
  .extend(webhooksEnv.shape)
  .extend(dispatchEnv.shape);
export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherConfig>;

import { clickhouseClusterEnv, clickhouseEnv, httpEnv, kafkaEnv, logEnv, postgresEnv } from '@shortlink/config';
import { z } from 'zod';

export const projectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(clickhouseEnv.shape)
  .extend(clickhouseClusterEnv.shape)
  .extend({
    CLICK_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(5000),
    /**
     * Which projections this process runs: both (the default), or one, so
     * that click projectors scale out (they share the clicks partitions
     * through their consumer group) apart from the link projector.
     */
    PROJECTIONS: z
      .string()
      .transform((s) => [...new Set(s.split(',').map((p) => p.trim()))].filter(Boolean))
      .pipe(z.array(z.enum(['links', 'clicks'])).min(1))
      .default(['links', 'clicks']),
  });
export type ProjectorConfig = z.infer<typeof projectorConfig>;

import { clickhouseEnv, httpEnv, kafkaEnv, logEnv, postgresEnv } from '@shortlink/config';
import { z } from 'zod';

export const projectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(clickhouseEnv.shape)
  .extend({ CLICK_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(5000) });
export type ProjectorConfig = z.infer<typeof projectorConfig>;

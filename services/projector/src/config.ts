import { clickhouseEnv, httpEnv, kafkaEnv, logEnv, postgresEnv } from '@shortlink/config';
import type { z } from 'zod';

export const projectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(clickhouseEnv.shape);
export type ProjectorConfig = z.infer<typeof projectorConfig>;

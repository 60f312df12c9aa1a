import { httpEnv, kafkaEnv, logEnv, postgresEnv, visitorEnv } from '@shortlink/config';
import type { z } from 'zod';

export const redirectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(postgresEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(visitorEnv.shape);
export type RedirectorConfig = z.infer<typeof redirectorConfig>;

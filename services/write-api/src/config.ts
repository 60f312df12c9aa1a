import { httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import type { z } from 'zod';

export const writeApiConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape);
export type WriteApiConfig = z.infer<typeof writeApiConfig>;

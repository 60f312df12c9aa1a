import { httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import type { z } from 'zod';

export const writeApiConfig = httpEnv
  .extend(logEnv.shape)
  // It produces and consumes no topic as a group member: no session timeout to set.
  .extend(kafkaEnv.omit({ KAFKA_SESSION_TIMEOUT_MS: true }).shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape);
export type WriteApiConfig = z.infer<typeof writeApiConfig>;

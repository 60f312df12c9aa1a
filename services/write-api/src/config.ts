import { httpEnv, kafkaEnv, logEnv, postgresEnv, publicEnv, rateLimitEnv } from '@shortlink/config';
import { domainsEnv } from '@shortlink/domains';
import { webhooksEnv } from '@shortlink/webhooks';
import type { z } from 'zod';

export const writeApiConfig = httpEnv
  .extend(logEnv.shape)
  // It produces and consumes no topic as a group member: no session timeout to set.
  .extend(kafkaEnv.omit({ KAFKA_SESSION_TIMEOUT_MS: true }).shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape)
  .extend(rateLimitEnv.shape)
  .extend(webhooksEnv.shape)
  .extend(domainsEnv.shape);
export type WriteApiConfig = z.infer<typeof writeApiConfig>;

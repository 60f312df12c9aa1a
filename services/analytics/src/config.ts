import { clickhouseEnv, httpEnv, logEnv, postgresEnv, publicEnv, rateLimitEnv } from '@shortlink/config';
import type { z } from 'zod';

export const analyticsConfig = httpEnv
  .extend(logEnv.shape)
  .extend(postgresEnv.shape)
  .extend(clickhouseEnv.shape)
  .extend(publicEnv.shape)
  .extend(rateLimitEnv.shape);
export type AnalyticsConfig = z.infer<typeof analyticsConfig>;

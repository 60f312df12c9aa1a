import { clickhouseEnv, httpEnv, logEnv, postgresEnv, publicEnv } from '@shortlink/config';
import type { z } from 'zod';

export const analyticsConfig = httpEnv
  .extend(logEnv.shape)
  .extend(postgresEnv.shape)
  .extend(clickhouseEnv.shape)
  .extend(publicEnv.shape);
export type AnalyticsConfig = z.infer<typeof analyticsConfig>;

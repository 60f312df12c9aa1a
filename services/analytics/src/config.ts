import { httpEnv, logEnv } from '@shortlink/config';
import type { z } from 'zod';

export const analyticsConfig = httpEnv.extend(logEnv.shape);
export type AnalyticsConfig = z.infer<typeof analyticsConfig>;

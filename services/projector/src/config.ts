import { httpEnv, logEnv } from '@shortlink/config';
import type { z } from 'zod';

export const projectorConfig = httpEnv.extend(logEnv.shape);
export type ProjectorConfig = z.infer<typeof projectorConfig>;

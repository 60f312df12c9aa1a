import { httpEnv, logEnv } from '@shortlink/config';
import type { z } from 'zod';

export const writeApiConfig = httpEnv.extend(logEnv.shape);
export type WriteApiConfig = z.infer<typeof writeApiConfig>;

import { httpEnv, logEnv } from '@shortlink/config';
import type { z } from 'zod';

export const redirectorConfig = httpEnv.extend(logEnv.shape);
export type RedirectorConfig = z.infer<typeof redirectorConfig>;

import { httpEnv, logEnv, postgresEnv } from '@shortlink/config';
import type { z } from 'zod';

export const redirectorConfig = httpEnv.extend(logEnv.shape).extend(postgresEnv.shape);
export type RedirectorConfig = z.infer<typeof redirectorConfig>;

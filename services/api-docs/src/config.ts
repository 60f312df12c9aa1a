import { httpEnv, logEnv, publicEnv } from '@shortlink/config';
import type { z } from 'zod';

/** What the API document's own process reads: where it listens, how it logs, and the base its document names. */
export const apiDocsConfig = httpEnv.extend(logEnv.shape).extend(publicEnv.shape);
export type ApiDocsConfig = z.infer<typeof apiDocsConfig>;

import { booleanFlag, httpEnv, kafkaEnv, logEnv, publicEnv } from '@shortlink/config';
import { z } from 'zod';

/** The preview worker's own settings, shared with the single-process deployment. */
export const previewEnv = z.object({
  /** Lets previews be fetched from loopback and private addresses. For local testing only. */
  PREVIEW_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Destinations fetched at once, in all. */
  PREVIEW_CONCURRENCY: z.coerce.number().int().min(1).max(4096).default(256),
  /** Destinations fetched at once from one host (host:port): politeness to each site. */
  PREVIEW_PER_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(6),
  /** How long a destination's preview is reused for other links to it, in seconds (0: never). */
  PREVIEW_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  /** Links read ahead and waiting for their preview, at most (under 1 KiB of the process's memory each: 0.4-0.6 KiB measured). */
  PREVIEW_MAX_PENDING: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
});

export const previewWorkerConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(publicEnv.shape)
  .extend(previewEnv.shape);
export type PreviewWorkerConfig = z.infer<typeof previewWorkerConfig>;

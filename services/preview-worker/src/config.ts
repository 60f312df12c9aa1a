import { booleanFlag, httpEnv, kafkaEnv, logEnv, publicEnv } from '@shortlink/config';
import { z } from 'zod';

/** The preview worker's own settings, shared with the single-process deployment. */
export const previewEnv = z.object({
  /** Lets previews be fetched from loopback and private addresses. For local testing only. */
  PREVIEW_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Destinations fetched at once (one per links-topic partition at most). */
  PREVIEW_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(6),
});

export const previewWorkerConfig = httpEnv
  .extend(logEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(publicEnv.shape)
  .extend(previewEnv.shape);
export type PreviewWorkerConfig = z.infer<typeof previewWorkerConfig>;

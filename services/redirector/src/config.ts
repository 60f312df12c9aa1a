import { booleanFlag, httpEnv, kafkaEnv, logEnv, postgresEnv, visitorEnv } from '@shortlink/config';
import { z } from 'zod';

/** The redirector's own settings, shared with the single-process deployment. */
export const redirectorEnv = z.object({
  /**
   * Where clicks are turned into events and produced: `worker-thread` (a
   * worker with its own Kafka connection, off the redirect loop; production's
   * path) or `event-loop` (on the redirect thread, through the process's event
   * log client; the embedded mode always uses it, its log living in-process).
   */
  CLICK_PATH: z.enum(['worker-thread', 'event-loop']).default('worker-thread'),
  /**
   * Links held in memory. Every other link costs a Postgres lookup when it is
   * followed; `npm run bench -- cold-cache` measures that cost and the memory
   * per cached link.
   */
  REDIRECT_CACHE_SIZE: z.coerce.number().int().min(1).max(50_000_000).default(1_000_000),
  /**
   * Whether `/robots.txt` lets crawlers follow short links. Off, it disallows
   * every path: a crawler's visit is no click, and a short link is no page to index.
   */
  ROBOTS_ALLOW_REDIRECTS: booleanFlag.default(false),
});

export const redirectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(postgresEnv.shape)
  // It produces and consumes no topic as a group member: no session timeout to set.
  .extend(kafkaEnv.omit({ KAFKA_SESSION_TIMEOUT_MS: true }).shape)
  .extend(visitorEnv.shape)
  .extend(redirectorEnv.shape);
export type RedirectorConfig = z.infer<typeof redirectorConfig>;

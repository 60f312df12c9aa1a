import { httpEnv, kafkaEnv, logEnv, postgresEnv, visitorEnv } from '@shortlink/config';
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
});

export const redirectorConfig = httpEnv
  .extend(logEnv.shape)
  .extend(postgresEnv.shape)
  // It produces and consumes no topic as a group member: no session timeout to set.
  .extend(kafkaEnv.omit({ KAFKA_SESSION_TIMEOUT_MS: true }).shape)
  .extend(visitorEnv.shape)
  .extend(redirectorEnv.shape);
export type RedirectorConfig = z.infer<typeof redirectorConfig>;

import type { KafkaLogger } from './client';
import { parkDeadLetter } from './dead-letter';
import type { EventLogClient, LogProducer, LogRecord } from './log-client';

/**
 * What a handler decided about one message. Anything thrown is treated as
 * retriable (a database or network hiccup): the message is retried with backoff
 * and its offset is not committed until it succeeds, so nothing is skipped.
 */
export type HandlerResult =
  | { kind: 'ok' }
  /** Deliberately ignored (an event type this consumer has no use for). */
  | { kind: 'drop'; reason: string }
  /** Will never succeed (malformed, unknown schema): parked on the dead-letter topic. */
  | { kind: 'dead-letter'; reason: string };

export const OK: HandlerResult = { kind: 'ok' };

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
}

export type MessageHandler = (message: LogRecord, context: MessageContext) => Promise<HandlerResult>;

export interface ConsumerMetrics {
  /** Per topic: messages by outcome, and retries. */
  readonly byTopic: ReadonlyMap<string, { ok: number; drop: number; deadLetter: number; retries: number }>;
}

export interface RunConsumerOptions {
  kafka: EventLogClient;
  groupId: string;
  topics: string[];
  handler: MessageHandler;
  logger: KafkaLogger;
  /** Used to park dead letters; must be connected by the caller's start. */
  deadLetterProducer: LogProducer;
  deadLetterTopic: string;
  fromBeginning?: boolean;
  maxBackoffMs?: number;
  sessionTimeoutMs?: number;
  /**
   * Partitions handled at once (default 1). Order within a partition is kept
   * whatever the value; raise it for handlers that wait on slow outside calls.
   */
  partitionsConcurrently?: number;
}

export interface RunningConsumer {
  metrics: ConsumerMetrics;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runConsumer(options: RunConsumerOptions): Promise<RunningConsumer> {
  const { kafka, groupId, topics, handler, logger, deadLetterProducer, deadLetterTopic } = options;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const byTopic = new Map<string, { ok: number; drop: number; deadLetter: number; retries: number }>();
  const counters = (topic: string) => {
    let c = byTopic.get(topic);
    if (!c) byTopic.set(topic, (c = { ok: 0, drop: 0, deadLetter: 0, retries: 0 }));
    return c;
  };
  let stopping = false;

  /** Handles one record, retrying until it is handled or the consumer stops; false when it stopped first. */
  async function handle(message: LogRecord, topic: string, partition: number, heartbeat: () => Promise<void>) {
    const context = { topic, partition, offset: message.offset };
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await handler(message, context);
        const c = counters(topic);
        if (result.kind === 'ok') c.ok++;
        else if (result.kind === 'drop') c.drop++;
        else {
          await parkDeadLetter(
            deadLetterProducer,
            deadLetterTopic,
            message,
            { topic, partition, groupId },
            result.reason,
          );
          c.deadLetter++;
          logger.warn({ ...context, reason: result.reason }, 'message parked on the dead-letter topic');
        }
        return true;
      } catch (err) {
        if (stopping) return false; // uncommitted: the next owner of the partition retries it
        counters(topic).retries++;
        const backoff = Math.min(maxBackoffMs, 100 * 2 ** Math.min(attempt, 10));
        logger.warn({ ...context, err, attempt, backoff }, 'retriable failure; retrying');
        await sleep(backoff);
        await heartbeat();
      }
    }
  }

  const consumer = await kafka.consume(
    {
      groupId,
      topics,
      fromBeginning: options.fromBeginning ?? true,
      sessionTimeoutMs: options.sessionTimeoutMs,
      partitionsConcurrently: options.partitionsConcurrently,
    },
    async ({ topic, partition, records }, control) => {
      let next: string | null = null;
      try {
        for (const record of records) {
          if (!control.owned() || !(await handle(record, topic, partition, control.heartbeat))) break;
          next = (BigInt(record.offset) + 1n).toString();
          await control.heartbeat();
        }
      } finally {
        // What was handled stays handled, even when the batch ended early. A
        // member that lost the partition meanwhile is refused, which is right:
        // the new owner handles the rest again.
        if (next !== null) {
          await control.commit(next).catch((err: unknown) => {
            if (control.owned()) throw err;
          });
        }
      }
    },
  );

  return {
    metrics: { byTopic },
    async stop() {
      stopping = true;
      await consumer.stop();
    },
  };
}

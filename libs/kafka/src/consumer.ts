import type { MetricsRegistry } from '@shortlink/metrics';
import type { KafkaLogger } from './client';
import { consumerMetrics, deadLetterReasonLabel, setLag } from './consumer-metrics';
import { parkDeadLetter } from './dead-letter';
import type { EventLogClient, LogProducer, LogRecord } from './log-client';
import { isTransientFailure } from './transient-failure';

/**
 * What a handler decided about one message. A handler that throws is judged
 * by its error (see `isTransientFailure`): a dependency away (Postgres,
 * ClickHouse, the broker) is retried with backoff until it is back, the
 * offset uncommitted, so nothing is skipped; any other error is the
 * message's own and is retried `maxHandlerErrors` times in all, then parked
 * on the dead-letter topic as `handler-error`, so a poison message never
 * stalls its partition.
 */
export type HandlerResult =
  | { kind: 'ok' }
  /** Deliberately ignored (an event type this consumer has no use for). */
  | { kind: 'drop'; reason: string }
  /**
   * Will never succeed (malformed, unknown schema): parked on the dead-letter
   * topic at once. The reason's leading word (`invalid-event: ...`) labels it
   * in `shortlink_dead_letters_total`; the whole text goes in a header.
   */
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
  /** The process's registry: outcomes, retries, dead letters and lag (see consumer-metrics.ts). */
  metrics: MetricsRegistry;
  fromBeginning?: boolean;
  maxBackoffMs?: number;
  /** Attempts in all for a message whose handler fails with an error that is not transient (default 3). */
  maxHandlerErrors?: number;
  /** Whether a handler's error may pass by itself (default: isTransientFailure). */
  isTransient?: (error: unknown) => boolean;
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
  const maxHandlerErrors = options.maxHandlerErrors ?? 3;
  const isTransient = options.isTransient ?? isTransientFailure;
  const metrics = consumerMetrics(options.metrics);
  const byTopic = new Map<string, { ok: number; drop: number; deadLetter: number; retries: number }>();
  const counters = (topic: string) => {
    let c = byTopic.get(topic);
    if (!c) byTopic.set(topic, (c = { ok: 0, drop: 0, deadLetter: 0, retries: 0 }));
    return c;
  };
  let stopping = false;

  async function park(message: LogRecord, topic: string, partition: number, reason: string) {
    await parkDeadLetter(deadLetterProducer, deadLetterTopic, message, { topic, partition, groupId }, reason);
    metrics.deadLetters.inc({ group: groupId, topic, reason: deadLetterReasonLabel(reason) });
    metrics.messages.inc({ group: groupId, topic, outcome: 'dead_letter' });
    counters(topic).deadLetter++;
    logger.warn({ topic, partition, offset: message.offset, reason }, 'message parked on the dead-letter topic');
  }

  /** Handles one record, retrying until it is handled or the consumer stops; false when it stopped first. */
  async function handle(message: LogRecord, topic: string, partition: number, heartbeat: () => Promise<void>) {
    const context = { topic, partition, offset: message.offset };
    let handlerErrors = 0;
    /** Set once the message is to be parked: a failed append to the dead-letter topic is retried, not the handler. */
    let parkReason: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        if (parkReason === undefined) {
          const result = await handler(message, context);
          if (result.kind !== 'dead-letter') {
            counters(topic)[result.kind]++;
            metrics.messages.inc({ group: groupId, topic, outcome: result.kind });
            return true;
          }
          parkReason = result.reason;
        }
        await park(message, topic, partition, parkReason);
        return true;
      } catch (err) {
        if (stopping) return false; // uncommitted: the next owner of the partition retries it
        const transient = isTransient(err);
        if (!transient && parkReason === undefined && ++handlerErrors >= maxHandlerErrors) {
          const text = err instanceof Error ? err.message : String(err);
          parkReason = `handler-error: ${text.slice(0, 500)} (after ${handlerErrors} attempts)`;
          continue;
        }
        counters(topic).retries++;
        metrics.retries.inc({ group: groupId, topic, reason: transient ? 'dependency_outage' : 'handler_error' });
        const backoff = Math.min(maxBackoffMs, 100 * 2 ** Math.min(attempt, 10));
        logger.warn({ ...context, err, attempt, backoff, transient }, 'handler failed; retrying');
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
    async ({ topic, partition, records, highWatermark }, control) => {
      let next: string | null = null;
      const lagOf = { group: groupId, topic, partition };
      // Set at once: a partition stuck on a dependency shows its lag while it waits.
      if (records[0]) setLag(metrics, lagOf, highWatermark, BigInt(records[0].offset));
      try {
        for (const record of records) {
          if (!control.owned() || !(await handle(record, topic, partition, control.heartbeat))) break;
          next = (BigInt(record.offset) + 1n).toString();
          setLag(metrics, lagOf, highWatermark, BigInt(next));
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

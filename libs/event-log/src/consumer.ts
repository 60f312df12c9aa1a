import type { MetricsRegistry } from '@shortlink/metrics';
import type { KafkaLogger } from './kafka/client';
import { consumerMetrics, deadLetterReasonLabel, setLag } from './consumer-metrics';
import { parkDeadLetter } from './dead-letter';
import type { BatchHandler, EventLogClient, LogProducer, LogRecord } from './log-client';
import { recordsInHandBatches, type HandledAs, type HandleRecord, type RecordInHand } from './records-in-hand';
import { isTransientFailure } from './transient-failure';

/**
 * What a handler decided about one message. A handler that throws is judged by its error (`isTransientFailure`): a
 * dependency away is retried with backoff until it is back, the offset uncommitted, so nothing is skipped; any other
 * error is the message's own, retried `maxHandlerErrors` times in all, then parked on the dead-letter topic as
 * `handler-error`, so a poison message never stalls its partition.
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

/** What a `DeferredRecordHandler` returns for a record it keeps in hand. */
export const HANDLED_LATER = 'handled-later';

/**
 * A handler for many records that wait long (the preview worker's links), given with `recordsInHand`. Called once per
 * record, at once: it keeps what it needs (never the record), returns `HANDLED_LATER`, and later calls `inHand.handled()` when
 * done or `inHand.release()` to give the record up on stop. It may instead return a result, settling the record at
 * once. A throw is a handler's failure (retried, then parked); once taken, a record's failures are the taker's to
 * retry.
 */
export type DeferredRecordHandler = (
  message: LogRecord,
  context: MessageContext,
  inHand: RecordInHand,
) => HandlerResult | typeof HANDLED_LATER;

export interface ConsumerMetrics {
  /** Per topic: messages by outcome, and retries. */
  readonly byTopic: ReadonlyMap<string, { ok: number; drop: number; deadLetter: number; retries: number }>;
}

interface ConsumerOptions {
  kafka: EventLogClient;
  groupId: string;
  topics: string[];
  logger: KafkaLogger;
  /** Parks dead letters; must be connected by the caller's start. */
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

/** `handler` for messages one at a time, or `take` for records held long in large numbers (with `recordsInHand`). */
export type RunConsumerOptions = ConsumerOptions &
  (
    | {
        handler: MessageHandler;
        /**
         * Records handled at once across the partitions (default: none, each partition's one after another). When set,
         * a batch's records all go to the handler and the consumer reads on, with up to this many in hand. A partition
         * is committed up to its first record not yet handled, so a restart skips nothing; order within a partition is
         * not kept, so this is for handlers whose effects do not depend on it and that wait on slow outside calls.
         */
        recordsInHand?: number;
        take?: never;
      }
    | {
        /** As `handler` with `recordsInHand`, for a handler that keeps far less than the record (see DeferredRecordHandler). */
        take: DeferredRecordHandler;
        recordsInHand: number;
        handler?: never;
      }
  );

export interface RunningConsumer {
  metrics: ConsumerMetrics;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runConsumer(options: RunConsumerOptions): Promise<RunningConsumer> {
  const { kafka, groupId, topics, logger, deadLetterProducer, deadLetterTopic } = options;
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

  /** Counts a message the consumer is done with. */
  function count(topic: string, as: HandledAs): void {
    counters(topic)[as === 'dead_letter' ? 'deadLetter' : as]++;
    metrics.messages.inc({ group: groupId, topic, outcome: as });
  }

  async function park(message: LogRecord, topic: string, partition: number, reason: string) {
    await parkDeadLetter(deadLetterProducer, deadLetterTopic, message, { topic, partition, groupId }, reason);
    metrics.deadLetters.inc({ group: groupId, topic, reason: deadLetterReasonLabel(reason) });
    logger.warn({ topic, partition, offset: message.offset, reason }, 'message parked on the dead-letter topic');
  }

  /**
   * Handles one record with `run`, retrying until it is handled or the
   * consumer stops: how it ended, `stopped` when it stopped first (the record
   * is then left uncommitted), `taken` when a taker keeps it.
   */
  async function handle(
    message: LogRecord,
    topic: string,
    partition: number,
    heartbeat: () => Promise<void>,
    run: (message: LogRecord, context: MessageContext) => Promise<HandlerResult> | HandlerResult | typeof HANDLED_LATER,
  ): Promise<HandledAs | 'stopped' | typeof HANDLED_LATER> {
    const context = { topic, partition, offset: message.offset };
    let handlerErrors = 0;
    /** Set once the message is to be parked: a failed append to the dead-letter topic is retried, not the handler. */
    let parkReason: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        if (parkReason === undefined) {
          const result = await run(message, context);
          if (result === HANDLED_LATER) return HANDLED_LATER;
          if (result.kind !== 'dead-letter') return result.kind;
          parkReason = result.reason;
        }
        await park(message, topic, partition, parkReason);
        return 'dead_letter';
      } catch (err) {
        if (stopping) return 'stopped'; // uncommitted: the next owner of the partition retries it
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

  /** A record in hand: handled by `run`, or, once taken, by the taker (which settles it itself). */
  const inHandWith =
    (run: DeferredRecordHandler | MessageHandler): HandleRecord =>
    (record, topic, partition, inHand, heartbeat) => {
      void handle(record, topic, partition, heartbeat, (message, context) => run(message, context, inHand)).then(
        (ended) => {
          if (ended === 'stopped') inHand.release();
          else if (ended !== HANDLED_LATER) inHand.handled(ended);
        },
        () => inHand.release(),
      );
    };

  const inHandBatches = (limit: number, run: DeferredRecordHandler | MessageHandler) =>
    recordsInHandBatches(limit, inHandWith(run), {
      logger,
      stopping: () => stopping,
      committed: ({ topic, partition }, highWatermark, next) =>
        setLag(metrics, { group: groupId, topic, partition }, highWatermark, next),
      handled: count,
    });
  /** Each partition's records one after another, committed as the batch ends. */
  const oneByOne =
    (handler: MessageHandler): BatchHandler =>
    async ({ topic, partition, records, highWatermark }, control) => {
      let next: string | null = null;
      const lagOf = { group: groupId, topic, partition };
      // Set at once: a partition stuck on a dependency shows its lag while it waits.
      if (records[0]) setLag(metrics, lagOf, highWatermark, BigInt(records[0].offset));
      try {
        for (const record of records) {
          if (!control.owned()) break;
          const ended = await handle(record, topic, partition, control.heartbeat, handler);
          if (ended === 'stopped' || ended === HANDLED_LATER) break;
          count(topic, ended);
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
    };
  let inHand: ReturnType<typeof inHandBatches> | undefined;
  let eachBatch: BatchHandler;
  if (options.take) {
    inHand = inHandBatches(options.recordsInHand, options.take);
    eachBatch = inHand.eachBatch;
  } else if (options.recordsInHand !== undefined) {
    inHand = inHandBatches(options.recordsInHand, options.handler);
    eachBatch = inHand.eachBatch;
  } else {
    eachBatch = oneByOne(options.handler);
  }
  const consumer = await kafka.consume(
    {
      groupId,
      topics,
      fromBeginning: options.fromBeginning ?? true,
      sessionTimeoutMs: options.sessionTimeoutMs,
      partitionsConcurrently: options.partitionsConcurrently,
    },
    eachBatch,
  );

  return {
    metrics: { byTopic },
    async stop() {
      stopping = true;
      // Records in hand end (or give up) first, and what they finished is committed while the member still can.
      await inHand?.drain();
      await consumer.stop();
    },
  };
}

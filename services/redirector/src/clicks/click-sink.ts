import type { LogAdmin, LogProducer } from '@shortlink/event-log';
import { ClickQueue, type ClickQueueStats, type QueueLogger } from './click-queue';
import { addressFacts, type AddressFactsOptions } from './address-facts';
import { toClickColumns } from './click-columns';
import { clickEventLines } from './click-event';
import type { RawClick } from './raw-click';
import { adminPartitionCount, clickRecordsAppender } from './click-records-appender';

/**
 * Where answered redirects go to become ClickRecorded events. `push` is O(1)
 * and never throws or waits; everything after it happens off the response.
 */
export interface ClickSink {
  push(click: RawClick): void;
  /** Clicks taken but not yet acknowledged by the event log. */
  readonly depth: number;
  readonly stats: Readonly<ClickQueueStats>;
  /** Click worker threads that died and were replaced (0 when producing in-process). */
  readonly workerRestarts: number;
  /** Resolves once every click taken so far is acknowledged. */
  flush(): Promise<void>;
  start(): Promise<void>;
  /** Stops taking clicks and sends what is held, within the time allowed. */
  stop(timeoutMs: number): Promise<void>;
}

/** At most this many clicks go to the event log in one append. */
export const MAX_CLICKS_PER_APPEND = 1000;
/** A click waits at most this long for its batch to fill. */
export const CLICK_FLUSH_INTERVAL_MS = 50;
/** Clicks held in memory while the event log is slow or away; beyond it they are dropped and counted. */
export const CLICK_CAPACITY = 200_000;

export interface InProcessClickSinkOptions extends AddressFactsOptions {
  producer: LogProducer;
  /** Asked for the clicks topic's partition count (see click-records-appender.ts). */
  admin: LogAdmin;
  topic: string;
  logger: QueueLogger;
  capacity?: number;
  /** The prefix of this process's click event ids (click-event-id.ts). */
  eventIdPrefix: string;
}

/**
 * Clicks built and produced on the calling thread. Used with the embedded
 * event log, which lives in this thread, and in tests; a redirector on Kafka
 * uses the worker sink so that this work does not compete with redirects.
 */
export function inProcessClickSink(options: InProcessClickSinkOptions): ClickSink {
  const building = { factsOf: addressFacts(options), eventIdPrefix: options.eventIdPrefix };
  const append = clickRecordsAppender({
    producer: options.producer,
    topic: options.topic,
    partitionCount: adminPartitionCount(options.admin, options.topic),
  });
  const queue = new ClickQueue<RawClick>({
    capacity: options.capacity ?? CLICK_CAPACITY,
    maxBatch: MAX_CLICKS_PER_APPEND,
    flushIntervalMs: CLICK_FLUSH_INTERVAL_MS,
    logger: options.logger,
    // Written a batch at a time, as in the click worker: the same columns, the same lines.
    send: async (clicks) => {
      const lines = clickEventLines(toClickColumns(clicks), building);
      await append(lines);
      return { rejected: lines.rejected, rejection: lines.rejection };
    },
  });
  return {
    push: (click) => queue.push(click),
    get depth() {
      return queue.depth;
    },
    stats: queue.stats,
    workerRestarts: 0,
    flush: () => queue.flush(),
    start: () => options.producer.connect(),
    async stop(timeoutMs) {
      await queue.close(timeoutMs);
      await options.producer.disconnect();
      await options.admin.disconnect().catch(() => undefined);
    },
  };
}

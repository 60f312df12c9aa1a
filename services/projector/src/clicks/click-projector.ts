import type { ClickHouseClient } from '@clickhouse/client';
import {
  parkDeadLetter,
  type BatchControl,
  type EventLogClient,
  type KafkaLogger,
  type LogProducer,
  type LogRecord,
  type RecordBatch,
} from '@shortlink/kafka';
import { clickRow, type ClickRow } from './click-rows';
import { insertClickBatch } from './deduplicated-insert';
import type { OffsetRange, RangeStore } from './ranges';

export interface ClickProjectorOptions {
  kafka: EventLogClient;
  clickhouse: ClickHouseClient;
  topic: string;
  groupId: string;
  deadLetterTopic: string;
  deadLetterProducer: LogProducer;
  ranges: RangeStore;
  logger: KafkaLogger;
  /** Most clicks in one ClickHouse insert; far below what one fetch returns (see below). */
  maxBatch?: number;
  sessionTimeoutMs?: number;
}

export interface ClickProjectorStats {
  inserted: number;
  deadLettered: number;
  retries: number;
  batches: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Projects the clicks topic into ClickHouse exactly once.
 *
 * Each partition is consumed in batches of consecutive offsets. Before a batch
 * is inserted its offset range is written down (RangeStore), the insert
 * carries a deduplication token made of topic, partition and range
 * (`deduplicated-insert.ts`), and only
 * after the offsets are committed is the range cleared. If the process dies
 * anywhere in between, or the partition moves to another consumer, the next
 * owner finds the range, re-forms exactly that batch and inserts it with the
 * same token: ClickHouse drops the blocks it already has, in the `clicks`
 * table and in every materialized view
 * (`deduplicate_blocks_in_dependent_materialized_views`). Nothing is lost
 * (offsets are committed only after the insert) and nothing is counted twice.
 *
 * A batch is at most `maxBatch` messages and a fetch returns up to
 * `maxBytesPerPartition`, set far larger, so a recorded range always fits in
 * the fetch that starts at its first offset.
 */
export async function runClickProjector(options: ClickProjectorOptions) {
  const maxBatch = options.maxBatch ?? 5000;
  const { topic, groupId, ranges, logger } = options;
  const stats: ClickProjectorStats = { inserted: 0, deadLettered: 0, retries: 0, batches: 0 };

  async function insert(rows: ClickRow[], range: OffsetRange, partition: number, control: BatchControl) {
    for (let attempt = 0; ; attempt++) {
      try {
        if (rows.length > 0) await insertClickBatch(options.clickhouse, rows, { topic, partition, range });
        return;
      } catch (err) {
        // The range stays recorded: whoever owns the partition next inserts it with the same token.
        if (!control.owned()) throw err;
        stats.retries++;
        const backoff = Math.min(10_000, 200 * 2 ** Math.min(attempt, 6));
        logger.warn({ err, partition, attempt, backoff }, 'ClickHouse insert failed; retrying');
        await sleep(backoff);
        await control.heartbeat();
      }
    }
  }

  async function projectBatch(batch: RecordBatch, control: BatchControl) {
    const { partition, records: messages } = batch;
    let pending = await ranges.get(partition);
    let i = 0;
    while (i < messages.length && control.owned()) {
      const first = BigInt(messages[i]!.offset);
      // A range older than the committed position was committed just before a
      // crash; the range recorded next replaces it.
      if (pending && pending.first < first) pending = null;
      let chunk: LogRecord[];
      let range: OffsetRange;
      if (pending && pending.first === first) {
        const end = messages.findIndex((m) => BigInt(m.offset) === pending!.last);
        if (end === -1) {
          // Cannot happen with the fetch sizes above; refetch rather than guess.
          logger.error({ partition, pending: String(pending.first) }, 'recorded click batch not in this fetch');
          return;
        }
        chunk = messages.slice(i, end + 1);
        range = pending;
      } else {
        // Stop short of a recorded range that starts further on (after a manual offset reset).
        const limit = pending ? messages.findIndex((m) => BigInt(m.offset) >= pending!.first) : -1;
        chunk = messages.slice(i, Math.min(i + maxBatch, limit === -1 ? messages.length : limit));
        range = { first, last: BigInt(chunk[chunk.length - 1]!.offset) };
        await ranges.record(partition, range);
      }

      const rows: ClickRow[] = [];
      const rejected: { message: LogRecord; reason: string }[] = [];
      for (const message of chunk) {
        const outcome = clickRow(message, partition);
        if (outcome.ok) rows.push(outcome.row);
        else rejected.push({ message, reason: outcome.reason });
      }
      await insert(rows, range, partition, control);
      for (const { message, reason } of rejected) {
        await parkDeadLetter(
          options.deadLetterProducer,
          options.deadLetterTopic,
          message,
          { topic, partition, groupId },
          reason,
        );
        logger.warn({ partition, offset: message.offset, reason }, 'click parked on the dead-letter topic');
      }
      await control.commit((range.last + 1n).toString());
      await ranges.clear(partition);
      stats.inserted += rows.length;
      stats.deadLettered += rejected.length;
      stats.batches++;
      pending = null;
      i += chunk.length;
      await control.heartbeat();
    }
  }

  await sweepSettledRanges(options.kafka, groupId, topic, ranges);
  await options.deadLetterProducer.connect();
  const consumer = await options.kafka.consume(
    {
      groupId,
      topics: [topic],
      fromBeginning: true,
      sessionTimeoutMs: options.sessionTimeoutMs,
      maxBytesPerPartition: 32 * 1024 * 1024,
    },
    projectBatch,
  );

  return {
    stats,
    async stop() {
      await consumer.stop();
      await options.deadLetterProducer.disconnect();
    },
  };
}

/**
 * A projector killed between its offset commit and clearing its range leaves
 * the range behind. Harmless (the next batch of the partition starts past it
 * and overwrites it), but if that partition gets no more clicks the row would
 * stay, telling operators a batch is in flight when none is.
 */
async function sweepSettledRanges(kafka: EventLogClient, groupId: string, topic: string, ranges: RangeStore) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const { partition, offset } of await admin.committedOffsets(groupId, topic)) {
      // -1: nothing committed yet, so no range can be settled.
      if (BigInt(offset) >= 0n) await ranges.clearSettled(partition, BigInt(offset));
    }
  } finally {
    await admin.disconnect();
  }
}

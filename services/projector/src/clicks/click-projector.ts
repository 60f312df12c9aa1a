import type { ClickHouseClient } from '@clickhouse/client';
import type { MetricsRegistry } from '@shortlink/metrics';
import {
  consumerMetrics,
  deadLetterReasonLabel,
  isTransientFailure,
  parkDeadLetter,
  setLag,
  type BatchControl,
  type EventLogClient,
  type KafkaLogger,
  type LogProducer,
  type LogRecord,
  type RecordBatch,
} from '@shortlink/event-log';
import { clickRows, clicksInRecord, type ClickRow } from './click-rows';
import { withoutCountedClicks } from './already-counted';
import { insertClickBatch } from './deduplicated-insert';
import type { BatchLedger } from './batch-ledger';
import { clickInsertGroups, type GroupOutcome } from './click-insert-groups';
import { projectorMetrics } from '../projector-metrics';

export interface ClickProjectorOptions {
  kafka: EventLogClient;
  clickhouse: ClickHouseClient;
  topic: string;
  groupId: string;
  deadLetterTopic: string;
  deadLetterProducer: LogProducer;
  ledger: BatchLedger;
  logger: KafkaLogger;
  /** The process's registry: consumer outcomes and lag, batch sizes, insert durations, rows. */
  metrics: MetricsRegistry;
  /** Most clicks in one partition's batch (an insert carries up to four such); far below what one fetch returns (see below). */
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
 * Projects the clicks topic into ClickHouse exactly once. Each partition's batch is claimed in the Postgres ledger
 * before its insert and marked inserted after it; only then are its offsets committed. The next owner of a partition
 * sends a pending batch's insert again with the same rows and deduplication token, so ClickHouse (and its materialized
 * views) drops what it has, and a click the topic holds twice is inserted once (`already-counted.ts`). A batch
 * (`maxBatch`) fits in the fetch that starts at its first offset (docs/decisions/0006-click-ledger-in-postgres.md).
 */
export async function runClickProjector(options: ClickProjectorOptions) {
  const maxBatch = options.maxBatch ?? 5000;
  const { topic, groupId, ledger, logger } = options;
  const stats: ClickProjectorStats = { inserted: 0, deadLettered: 0, retries: 0, batches: 0 };
  const consumed = consumerMetrics(options.metrics);
  const projected = projectorMetrics(options.metrics);
  const labels = { group: groupId, topic };

  /** Runs a ClickHouse step until it succeeds, backing off while ClickHouse is away, as long as `owned()` holds. */
  async function retry<T>(step: () => Promise<T>, owned: () => boolean, heartbeat: () => Promise<void>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (err) {
        // The batches stay recorded: whoever owns their partitions next sends them with the same token.
        if (!owned()) throw err;
        stats.retries++;
        // Every row was parsed and checked before: a failure is ClickHouse's, and the step is retried as it is.
        const reason = isTransientFailure(err) ? 'dependency_outage' : 'handler_error';
        consumed.retries.inc({ ...labels, reason });
        // Capped low: once ClickHouse is back, the backlog starts draining within 2 s, not 10.
        const backoff = Math.min(2000, 200 * 2 ** Math.min(attempt, 4));
        logger.warn({ err, attempt, backoff }, 'ClickHouse insert failed; retrying');
        await sleep(backoff);
        await heartbeat();
      }
    }
  }

  async function insert(rows: ClickRow[], token: string) {
    const timer = projected.insertDuration.startTimer({ projection: 'clicks' });
    try {
      await insertClickBatch(options.clickhouse, rows, token);
    } finally {
      timer();
    }
  }

  const groups = clickInsertGroups({
    topic,
    ledger,
    withoutCounted: (rows, batches) => withoutCountedClicks(options.clickhouse, rows, batches),
    insert,
    retry,
    maxClicks: 4 * maxBatch,
    onInsert: (batches) => projected.insertBatches.observe({ projection: 'clicks' }, batches),
  });

  async function projectBatch(batch: RecordBatch, control: BatchControl) {
    const { partition, records: messages, highWatermark } = batch;
    const lagOf = { ...labels, partition };
    if (messages[0]) setLag(consumed, lagOf, highWatermark, BigInt(messages[0].offset));
    const indexOf = (offset: bigint) => messages.findIndex((m) => BigInt(m.offset) === offset);
    let i = 0;
    while (i < messages.length && control.owned()) {
      const first = BigInt(messages[i]!.offset);
      // At most maxBatch clicks, by the records' own count, and at least one record.
      let proposedEnd = i;
      for (let clicks = clicksInRecord(messages[i]!); proposedEnd + 1 < messages.length; proposedEnd++) {
        clicks += clicksInRecord(messages[proposedEnd + 1]!);
        if (clicks > maxBatch) break;
      }
      const claim = await ledger.claim(partition, { first, last: BigInt(messages[proposedEnd]!.offset) });
      if (claim.kind === 'skip') {
        // Inserted by an owner that could not commit its offsets (it died, or lost the partition).
        while (i < messages.length && BigInt(messages[i]!.offset) <= claim.through) i++;
        await control.commit((claim.through + 1n).toString());
        setLag(consumed, lagOf, highWatermark, claim.through + 1n);
        continue;
      }
      const { range } = claim;
      const start = indexOf(range.first);
      const end = indexOf(range.last);
      if (start === -1 || end === -1) {
        // Another owner's batch that this fetch does not hold whole: fetch again rather than guess.
        logger.warn(
          { partition, first: String(range.first), last: String(range.last) },
          'claimed click batch not in this fetch',
        );
        return;
      }
      const chunk = messages.slice(start, end + 1);
      const rows: ClickRow[] = [];
      const rejected: { message: LogRecord; reason: string }[] = [];
      let oldestClick = Infinity;
      for (const message of chunk) {
        for (const outcome of clickRows(message, partition)) {
          if (outcome.ok) {
            rows.push(outcome.row);
            oldestClick = Math.min(oldestClick, outcome.clickedAt);
          } else {
            // The bad line alone is parked, with its index: the record's other clicks are counted.
            const value = outcome.text === null ? null : Buffer.from(outcome.text, 'utf8');
            const headers = { ...message.headers, 'dlq-source-line': String(outcome.line) };
            rejected.push({ message: { ...message, value, headers }, reason: outcome.reason });
          }
        }
      }
      const owned = () => control.owned();
      const heartbeat = () => control.heartbeat();
      let outcome: GroupOutcome;
      if (claim.kind === 'resend') {
        // Bound to an insert of an owner that did not settle it: its rows again, under its token.
        const kept = await ledger.groupRows(claim.token);
        if (kept === null) {
          // None kept: every batch of that insert was settled meanwhile, so the next claim skips this one;
          // unless its rows were deleted by hand, which no claim can mend (docs/clickhouse-operators.md: a reset is a rebuild).
          const row = await ledger.get(partition);
          if (row?.state === 'pending' && row.token === claim.token) {
            throw new Error(`the rows of click insert ${claim.token} are gone from click_insert_groups`);
          }
          continue;
        }
        await retry(() => insert(kept, claim.token), owned, heartbeat);
        outcome = { bound: true, token: claim.token, inserted: 0 };
      } else {
        outcome = await groups.send({ partition, range, rows, alone: claim.alone, owned, heartbeat });
        // Moved on or bound by another owner since the claim: the next claim says which.
        if (!outcome.bound) continue;
      }
      const { inserted } = outcome;
      // Once inserted, clicks are countable (the materialized views fill with the insert): the oldest
      // one's age is the batch's worst freshness. Clicks sent again say nothing of it.
      if (inserted > 0) projected.clickFreshness.observe(Math.max(0, Date.now() - oldestClick) / 1000);
      for (const { message, reason } of rejected) {
        await parkDeadLetter(
          options.deadLetterProducer,
          options.deadLetterTopic,
          message,
          { topic, partition, groupId },
          reason,
        );
        consumed.deadLetters.inc({ ...labels, reason: deadLetterReasonLabel(reason) });
        logger.warn({ partition, offset: message.offset, reason }, 'click parked on the dead-letter topic');
      }
      if (!(await ledger.settle(partition, range, outcome.token))) {
        // Another owner moved the partition on meanwhile; what it does next starts from the ledger, not from here.
        logger.warn({ partition, first: String(range.first) }, 'click batch settled by another owner; leaving it');
        return;
      }
      await control.commit((range.last + 1n).toString());
      setLag(consumed, lagOf, highWatermark, range.last + 1n);
      consumed.messages.inc({ ...labels, outcome: 'ok' }, rows.length);
      if (rejected.length > 0) consumed.messages.inc({ ...labels, outcome: 'dead_letter' }, rejected.length);
      projected.batchSize.observe({ projection: 'clicks' }, rows.length + rejected.length);
      projected.rows.inc({ projection: 'clicks' }, inserted);
      stats.inserted += inserted;
      stats.deadLettered += rejected.length;
      stats.batches++;
      i = end + 1;
      await control.heartbeat();
    }
  }

  await options.deadLetterProducer.connect();
  const consumer = await options.kafka.consume(
    {
      groupId,
      topics: [topic],
      fromBeginning: true,
      sessionTimeoutMs: options.sessionTimeoutMs,
      maxBytesPerPartition: 32 * 1024 * 1024,
      // Each batch costs ledger round trips, and each insert a lookup and ClickHouse's parts, whatever
      // their size: a fetch waits up to a quarter of a second for a few hundred clicks rather than
      // bringing each handful on its own.
      fetchMinBytes: 128 * 1024,
      fetchMaxWaitMs: 250,
      // Every partition in hand at once, each in order: their batches share the inserts.
      partitionsConcurrently: 12,
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

import type { ClickHouseClient } from '@clickhouse/client';
import type { MetricsRegistry } from '@shortlink/metrics';
import {
  consumerMetrics,
  isTransientFailure,
  setLag,
  type BatchControl,
  type EventLogClient,
  type KafkaLogger,
  type RecordBatch,
} from '@shortlink/event-log';
import { projectorMetrics } from '../projector-metrics';
import { LINK_TAG_COLUMNS, linkTagRow, type LinkTagRow } from './link-tag-rows';

export interface LinkTagsProjectorOptions {
  kafka: EventLogClient;
  clickhouse: ClickHouseClient;
  /** The links topic. */
  topic: string;
  groupId: string;
  logger: KafkaLogger;
  /** The process's registry: consumer outcomes and lag, batch sizes, insert durations, rows. */
  metrics: MetricsRegistry;
  sessionTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Projects each link's tag from the links topic into ClickHouse's `link_tags`, one insert per fetched batch of a
 * partition. Every row is parsed before the insert, so a failed insert is ClickHouse's: it is retried as it is, with
 * backoff, while the partition is this member's, and the offsets are committed only after it. An insert sent again
 * (after a crash before the commit) carries the same deduplication token, and the table keeps a link's newest row by
 * version anyway, so a replay changes nothing. A new group starts at the topic's first record: that pass is the fill
 * of existing links (docs/clickhouse.md).
 */
export async function runLinkTagsProjector(options: LinkTagsProjectorOptions) {
  const { topic, groupId, logger } = options;
  const consumed = consumerMetrics(options.metrics);
  const projected = projectorMetrics(options.metrics);
  const labels = { group: groupId, topic };

  async function insert(rows: LinkTagRow[], token: string) {
    const timer = projected.insertDuration.startTimer({ projection: 'link_tags' });
    try {
      await options.clickhouse.insert({
        table: 'link_tags',
        columns: [...LINK_TAG_COLUMNS],
        values: rows,
        format: 'JSONCompactEachRow',
        clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: token, insert_distributed_sync: 1 },
      });
    } finally {
      timer();
    }
  }

  async function projectBatch(batch: RecordBatch, control: BatchControl) {
    const { partition, records, highWatermark } = batch;
    const first = records[0];
    const last = records.at(-1);
    if (!first || !last) return;
    const lagOf = { ...labels, partition };
    setLag(consumed, lagOf, highWatermark, BigInt(first.offset));
    const rows: LinkTagRow[] = [];
    let passed = 0;
    for (const record of records) {
      const outcome = linkTagRow(record);
      if (outcome.kind === 'row') rows.push(outcome.row);
      else passed++;
    }
    if (rows.length > 0) {
      const token = `${topic}/link-tags/${partition}/${first.offset}-${last.offset}`;
      for (let attempt = 0; ; attempt++) {
        try {
          await insert(rows, token);
          break;
        } catch (err) {
          // Uncommitted: the partition's next owner reads the batch again.
          if (!control.owned()) return;
          const reason = isTransientFailure(err) ? 'dependency_outage' : 'handler_error';
          consumed.retries.inc({ ...labels, reason });
          const backoff = Math.min(2000, 200 * 2 ** Math.min(attempt, 4));
          logger.warn({ err, attempt, backoff, partition }, 'link_tags insert failed; retrying');
          await sleep(backoff);
          await control.heartbeat();
        }
      }
    }
    const next = BigInt(last.offset) + 1n;
    await control.commit(next.toString());
    setLag(consumed, lagOf, highWatermark, next);
    if (rows.length > 0) consumed.messages.inc({ ...labels, outcome: 'ok' }, rows.length);
    if (passed > 0) consumed.messages.inc({ ...labels, outcome: 'drop' }, passed);
    projected.batchSize.observe({ projection: 'link_tags' }, records.length);
    projected.rows.inc({ projection: 'link_tags' }, rows.length);
  }

  const consumer = await options.kafka.consume(
    { groupId, topics: [topic], fromBeginning: true, sessionTimeoutMs: options.sessionTimeoutMs },
    projectBatch,
  );
  return { stop: () => consumer.stop() };
}

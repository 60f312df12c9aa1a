import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickRow } from './click-rows';
import type { OffsetRange } from './batch-ledger';

/** Where a batch of clicks came from: a topic, one of its partitions, and a range of consecutive offsets. */
export interface ClickBatchSource {
  topic: string;
  partition: number;
  range: OffsetRange;
}

/**
 * The batch's deduplication token: the same source always gives the same
 * token, so a batch inserted again (after a crash between insert and commit)
 * is recognised by ClickHouse and dropped.
 */
export function deduplicationToken({ topic, partition, range }: ClickBatchSource): string {
  return `${topic}/${partition}/${range.first}-${range.last}`;
}

/** The columns a click row fills, in the order each row's values are sent: every field of ClickRow, once. */
const CLICK_COLUMNS = Object.keys({
  event_id: true,
  link_id: true,
  account_id: true,
  slug: true,
  clicked_at: true,
  visitor_hash: true,
  referrer: true,
  country: true,
  device: true,
  browser: true,
  os: true,
  source_partition: true,
  source_offset: true,
} satisfies Record<keyof ClickRow, true>) as [keyof ClickRow, ...(keyof ClickRow)[]];

/**
 * Inserts a batch of clicks so that inserting the same batch again changes
 * nothing: in `clicks` and, through
 * `deduplicate_blocks_in_dependent_materialized_views`, in every aggregate
 * its materialized views fill.
 */
export async function insertClickBatch(
  clickhouse: ClickHouseClient,
  rows: ClickRow[],
  source: ClickBatchSource,
): Promise<void> {
  await clickhouse.insert({
    table: 'clicks',
    // Rows as arrays, the column names once: a third less to encode here and
    // less for ClickHouse to parse than an object per row (docs/performance.md).
    columns: CLICK_COLUMNS,
    values: rows.map((row) => CLICK_COLUMNS.map((column) => row[column])),
    format: 'JSONCompactEachRow',
    clickhouse_settings: {
      insert_deduplicate: 1,
      insert_deduplication_token: deduplicationToken(source),
      deduplicate_blocks_in_dependent_materialized_views: 1,
      // On a cluster `clicks` is Distributed: written to the shards' replicas within this
      // request, with this token, instead of queued and resent later in batches of its own.
      // One server ignores it.
      insert_distributed_sync: 1,
    },
  });
}

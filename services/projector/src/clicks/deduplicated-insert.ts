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
    values: rows,
    format: 'JSONEachRow',
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

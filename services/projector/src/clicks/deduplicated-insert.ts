import type { ClickHouseClient } from '@clickhouse/client';
import { CLICK_COLUMNS, clickRowValues, type ClickRow } from './click-rows';
import type { PartitionBatch } from './batch-ledger';

/**
 * The deduplication token of an insert of these batches of `topic`: the
 * same batches always give the same token, so an insert sent again (after a
 * crash between insert and commit) is recognised by ClickHouse and dropped.
 * One batch alone keeps the token of the earlier versions, which sent every
 * batch alone: `topic/partition/first-last`.
 */
export function deduplicationToken(topic: string, batches: readonly PartitionBatch[]): string {
  const named = [...batches]
    .sort((a, b) => a.partition - b.partition)
    .map(({ partition, range }) => `${partition}/${range.first}-${range.last}`);
  return `${topic}/${named.join('+')}`;
}

/**
 * Inserts clicks so that inserting the same rows again under the same token
 * changes nothing: in `clicks` and, through
 * `deduplicate_blocks_in_dependent_materialized_views`, in every aggregate
 * its materialized views fill.
 */
export async function insertClickBatch(clickhouse: ClickHouseClient, rows: ClickRow[], token: string): Promise<void> {
  await clickhouse.insert({
    table: 'clicks',
    // Rows as arrays, the column names once: a third less to encode here and
    // less for ClickHouse to parse than an object per row (docs/decisions/0014-projector-per-click-costs.md).
    columns: CLICK_COLUMNS,
    values: clickRowValues(rows),
    format: 'JSONCompactEachRow',
    clickhouse_settings: {
      insert_deduplicate: 1,
      insert_deduplication_token: token,
      deduplicate_blocks_in_dependent_materialized_views: 1,
      // On a cluster `clicks` is Distributed: written to the shards' replicas within this
      // request, with this token, instead of queued and resent later in batches of its own.
      // One server ignores it.
      insert_distributed_sync: 1,
    },
  });
}

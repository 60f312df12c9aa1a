import type { ClickHouseClient } from '@clickhouse/client';
import type { PartitionBatch } from './batch-ledger';
import type { ClickRow } from './click-rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A click the topic holds twice (a redirector resending a batch it was unsure of) is counted once: a row whose event id
 * is in ClickHouse already, or earlier in the same batch, is not inserted. Duplicates share link, time and partition,
 * so one lookup reads only the primary-key range of the batches' links and time span. A copy from the batch's own
 * offsets is kept: the batch goes again whole under its token, so a view a dead owner never reached takes it
 * (docs/decisions/0060-a-pending-batch-resent-whole.md).
 */
export async function withoutCountedClicks(
  clickhouse: ClickHouseClient,
  rows: ClickRow[],
  batches: readonly PartitionBatch[],
): Promise<ClickRow[]> {
  const seen = new Set<string>();
  const unique = rows.filter((row) => !seen.has(row.event_id) && seen.add(row.event_id));
  if (unique.length === 0) return unique;
  // Inlined, not bound: a batch can hold thousands of links, too many for URL parameters.
  // Every link id was parsed as a UUID at the boundary; checked again as it enters SQL.
  const list = (values: Iterable<string>) =>
    [...values]
      .map((v) => {
        if (!UUID.test(v)) throw new Error(`not a UUID: ${v}`);
        return `'${v}'`;
      })
      .join(',');
  const times = unique.map((r) => r.clicked_at).sort();
  // Partitions and offsets come from the log client as numbers, never from a record's bytes.
  const ownOffsets = batches
    .map(
      ({ partition, range }) =>
        `(source_partition = ${partition} AND source_offset BETWEEN ${range.first} AND ${range.last})`,
    )
    .join(' OR ');
  const result = await clickhouse.query({
    query: `SELECT toString(event_id) AS id FROM clicks
             WHERE link_id IN (${list(new Set(unique.map((r) => r.link_id)))})
               AND clicked_at BETWEEN {from:DateTime64(3, 'UTC')} AND {to:DateTime64(3, 'UTC')}
               AND source_partition IN (${batches.map((b) => b.partition).join(',')})
               AND NOT (${ownOffsets})`,
    query_params: {
      from: times[0],
      to: times[times.length - 1],
    },
    format: 'JSONEachRow',
  });
  const counted = new Set((await result.json<{ id: string }>()).map((r) => r.id));
  return counted.size === 0 ? unique : unique.filter((row) => !counted.has(row.event_id));
}

import type { ClickHouseClient } from '@clickhouse/client';
import type { Readable } from 'node:stream';
import { CURSOR_COLUMN, type ExportCursor } from './export-cursor';
import type { ExportFormat } from './export-errors';

/** What one export reads: always one account's clicks. */
export interface ExportQuery {
  accountId: string;
  format: ExportFormat;
  from: Date;
  to: Date;
  slug?: string;
  /** Only the live links that carry this tag now (link_tags). */
  tag?: string;
  after?: ExportCursor;
  limit?: number;
}

const CLICKHOUSE_FORMATS: Record<ExportFormat, string> = {
  ndjson: 'JSONEachRow',
  csv: 'CSVWithNames',
  parquet: 'Parquet',
};

/** The columns an account sees, in this order: never `account_id` (its own) nor the Kafka lineage columns. */
export const EXPORT_COLUMNS = [
  'event_id',
  'link_id',
  'slug',
  'clicked_at',
  'visitor_hash',
  'referrer',
  'country',
  'device',
  'browser',
  'os',
  'trigger',
  'cursor',
] as const;

const dateTime = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

/**
 * The export's SQL: the account's clicks in the table's own order (link_id, clicked_at, event_id), which ClickHouse
 * reads in order without sorting the whole range, each row with the cursor that resumes after it. Identifiers and
 * values are bound as parameters; a tag's links are read in ClickHouse (link_tags, migration 0007), however many.
 */
export function exportStatement(q: ExportQuery): { query: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { account: q.accountId, from: dateTime(q.from), to: dateTime(q.to) };
  const where = [
    'account_id = {account:UUID}',
    "clicked_at >= {from:DateTime64(3, 'UTC')}",
    "clicked_at < {to:DateTime64(3, 'UTC')}",
  ];
  if (q.slug !== undefined) {
    params.slug = q.slug;
    where.push('slug = {slug:String}');
  }
  if (q.tag !== undefined) {
    params.tag = q.tag;
    // A link's current tag is its newest tag row by version; a deleted link has a row of its own.
    where.push(
      `link_id IN (SELECT link_id FROM link_tags WHERE account_id = {account:UUID} GROUP BY link_id
                    HAVING max(deleted) = 0 AND argMaxIf(tag, version, deleted = 0) = {tag:String})`,
    );
  }
  if (q.after !== undefined) {
    Object.assign(params, {
      afterLink: q.after.linkId,
      afterAt: dateTime(new Date(q.after.clickedAtMs)),
      afterEvent: q.after.eventId,
    });
    // The first condition lets the primary key skip the links already exported; the tuple is the exact position.
    where.push(
      'link_id >= {afterLink:UUID}',
      "(link_id, clicked_at, event_id) > ({afterLink:UUID}, {afterAt:DateTime64(3, 'UTC')}, {afterEvent:UUID})",
    );
  }
  if (q.limit !== undefined) params.limit = q.limit;
  const query = `SELECT
  toString(event_id) AS event_id, toString(link_id) AS link_id, slug, clicked_at,
  toString(visitor_hash) AS visitor_hash, toString(referrer) AS referrer, toString(country) AS country,
  toString(device) AS device, toString(browser) AS browser, toString(os) AS os, toString(trigger) AS trigger,
  ${CURSOR_COLUMN} AS cursor
FROM (
  SELECT event_id, link_id, slug, clicked_at, visitor_hash, referrer, country, device, browser, os, trigger
  FROM clicks
  WHERE ${where.join('\n    AND ')}
  ORDER BY link_id, clicked_at, event_id${q.limit === undefined ? '' : '\n  LIMIT {limit:UInt64}'}
)
FORMAT ${CLICKHOUSE_FORMATS[q.format]}`;
  return { query, params };
}

/**
 * The export as ClickHouse writes it, a byte stream to pipe on: nothing is decoded here. `signal` withdraws the
 * query (the HTTP request to ClickHouse is ended, and a server cancels a read-only query whose client went away).
 */
export async function streamExport(
  clickhouse: ClickHouseClient,
  q: ExportQuery,
  signal: AbortSignal,
): Promise<Readable> {
  const { query, params } = exportStatement(q);
  const { stream } = await clickhouse.exec({
    query,
    query_params: params,
    abort_signal: signal,
    clickhouse_settings: {
      date_time_output_format: 'iso',
      output_format_parquet_row_group_size: '100000',
      // Every Parquet reader has Snappy; zstd, ClickHouse's default, is missing from some.
      output_format_parquet_compression_method: 'snappy',
      cancel_http_readonly_queries_on_client_close: 1,
      // On a cluster link_tags is sharded by link_id as clicks are: each shard reads its own links' tags.
      distributed_product_mode: 'local',
      optimize_read_in_order: 1,
    },
  });
  return stream;
}

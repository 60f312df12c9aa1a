import type { ClickHouseClient } from '@clickhouse/client';
import type { GroupBy } from '../analytics-errors';
import type { ClickDays } from '../analytics/range';

/** One group of the account's clicks: a link (its slug), a tag, a dimension's value or a UTC day. */
export interface AccountRow {
  name: string;
  /** The link's id, for `groupBy=link` only. */
  linkId?: string;
  clicks: number;
  uniqueVisitors: number;
}

export interface AccountStats {
  totalClicks: number;
  uniqueVisitors: number;
  rows: AccountRow[];
}

export interface AccountStatsRequest {
  accountId: string;
  groupBy: GroupBy;
  limit: number;
  from: string;
  to: string;
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

const DIMENSIONS: ReadonlySet<GroupBy> = new Set(['country', 'referrer', 'device', 'browser', 'domain']);

/**
 * The first and last UTC days of the account's clicks, or undefined without
 * any: the range ends on the later of today and the last (as a link's does),
 * and `all` starts on the first.
 */
export async function readAccountClickDays(
  clickhouse: ClickHouseClient,
  accountId: string,
  signal?: AbortSignal,
): Promise<ClickDays | undefined> {
  const [row] = await clickhouse
    .query({
      query: `SELECT toString(min(day)) AS first, toString(max(day)) AS last, count() AS n
                FROM account_daily WHERE account_id = {account:UUID}`,
      query_params: { account: accountId },
      format: 'JSONEachRow',
      abort_signal: signal,
    })
    .then((r) => r.json<{ first: string; last: string; n: number }>());
  return row && Number(row.n) > 0 ? { first: row.first, last: row.last } : undefined;
}

/** The statement of the rows for a grouping: name, link, clicks, visitors; the top `limit` by clicks, ties by name. */
function rowsQuery(groupBy: GroupBy): string {
  const range = `account_id = {account:UUID} AND day BETWEEN {from:Date} AND {to:Date}`;
  const top = `ORDER BY clicks DESC, name ASC LIMIT {limit:UInt32}`;
  const counts = `toUInt64(sum(clicks)) AS clicks, toUInt64(uniqExactMerge(visitors)) AS visitors`;
  if (groupBy === 'day') {
    return `SELECT toString(day) AS name, '' AS link, ${counts} FROM account_daily WHERE ${range} GROUP BY day ${top}`;
  }
  if (groupBy === 'link') {
    // Two passes: the top links by clicks first (a sum per link), then visitor sets merged for those links only.
    // Merging every link's sets of the range, to keep `limit` of them, cost seconds at 100,000 links (decision 0073).
    return `SELECT any(slug) AS name, toString(link_id) AS link, ${counts}
              FROM account_link_daily
             WHERE ${range}
               AND link_id IN (SELECT link_id FROM account_link_daily WHERE ${range}
                                GROUP BY link_id ORDER BY sum(clicks) DESC, any(slug) ASC LIMIT {limit:UInt32})
             GROUP BY link_id ${top}`;
  }
  if (groupBy === 'tag') {
    // Each link under its current tag, joined in ClickHouse (link_tags, migration 0007): its newest tag row by
    // version; a deleted link under its last tag, as its clicks stay in the account's figures.
    return `SELECT t.tag AS name, '' AS link, ${counts}
              FROM account_link_daily AS d
             INNER JOIN (SELECT link_id, argMax(tag, version) AS tag FROM link_tags
                          WHERE account_id = {account:UUID} AND deleted = 0 GROUP BY link_id HAVING tag != '') AS t
                ON d.link_id = t.link_id
             WHERE d.account_id = {account:UUID} AND d.day BETWEEN {from:Date} AND {to:Date}
             GROUP BY t.tag ${top}`;
  }
  if (!DIMENSIONS.has(groupBy)) throw new Error(`Unknown grouping: ${groupBy}`);
  return `SELECT value AS name, '' AS link, ${counts}
            FROM account_daily_breakdown WHERE ${range} AND dimension = {dimension:String} GROUP BY value ${top}`;
}

/**
 * The account's clicks and distinct visitors over the days from..to, and the
 * top groups of the grouping, in one statement (the local engine runs one
 * query at a time). Every figure is read from the account aggregates of
 * migration 0005: sums of clicks, and visitor sets merged (a visitor of two
 * links, days or tags counts once in the total).
 */
export async function readAccountStats(
  clickhouse: ClickHouseClient,
  request: AccountStatsRequest,
  signal?: AbortSignal,
): Promise<AccountStats> {
  const { accountId, groupBy, limit, from, to } = request;
  const query = `SELECT 'total' AS kind, '' AS name, '' AS link,
                        toUInt64(sum(clicks)) AS clicks, toUInt64(uniqExactMerge(visitors)) AS visitors
                   FROM account_daily
                  WHERE account_id = {account:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                 UNION ALL SELECT 'row', name, link, clicks, visitors FROM (${rowsQuery(groupBy)})`;
  const rows = await clickhouse
    .query({
      query,
      query_params: { account: accountId, from, to, limit, dimension: groupBy },
      format: 'JSONEachRow',
      // On a cluster link_tags is sharded by link_id as account_link_daily is: each shard joins its own rows.
      clickhouse_settings: { distributed_product_mode: 'local' },
      abort_signal: signal,
    })
    .then((r) => r.json<{ kind: string; name: string; link: string; clicks: number; visitors: number }>());
  const stats: AccountStats = { totalClicks: 0, uniqueVisitors: 0, rows: [] };
  for (const row of rows) {
    const clicks = Number(row.clicks);
    const uniqueVisitors = Number(row.visitors);
    if (row.kind === 'total') {
      stats.totalClicks = clicks;
      stats.uniqueVisitors = uniqueVisitors;
    } else {
      stats.rows.push({
        name: row.name,
        ...(groupBy === 'link' ? { linkId: row.link } : {}),
        clicks,
        uniqueVisitors,
      });
    }
  }
  // The union's parts arrive in any order; ties by name, as each part chose them.
  stats.rows.sort((a, b) => b.clicks - a.clicks || byBytes(a.name, b.name));
  return stats;
}

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

/** The links that carry each tag now (Postgres, the owner of a link's tag): tag, then its links' ids. */
export type TaggedLinks = ReadonlyMap<string, readonly string[]>;

export interface AccountStatsRequest {
  accountId: string;
  groupBy: GroupBy;
  limit: number;
  from: string;
  to: string;
}

/** ClickHouse's own default for max_query_size, kept for every statement that fits it. */
const DEFAULT_MAX_QUERY_SIZE = 262_144;

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

const DIMENSIONS: ReadonlySet<GroupBy> = new Set(['country', 'referrer', 'device', 'browser']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

/**
 * The tag of each link, for the tag grouping: a transform from link id to the
 * tag's number (1-based; 0 for a link without a tag). Written into the
 * statement rather than passed as a parameter: parameters travel in the URL,
 * which servers cap (16 KiB at the local endpoint, a few hundred links; 128 KiB
 * a value at a ClickHouse server), and an account may have many tagged links.
 * Only ids that are UUIDs are written, and the numbers are positions, so no
 * text from a user reaches the SQL.
 */
function tagOfLink(tagged: TaggedLinks): { expression: string; names: string[] } {
  const ids: string[] = [];
  const numbers: number[] = [];
  // Numbered in the server's (byte) order of their text, so its ties by number are ties by name.
  const names = [...tagged.keys()].sort(byBytes);
  names.forEach((tag, i) => {
    for (const id of tagged.get(tag) ?? []) {
      if (!UUID.test(id)) throw new Error(`Not a link id: ${id}`);
      ids.push(`'${id}'`);
      numbers.push(i + 1);
    }
  });
  return {
    expression: `transform(link_id, CAST([${ids.join(',')}] AS Array(UUID)), CAST([${numbers.join(',')}] AS Array(UInt32)), toUInt32(0))`,
    names,
  };
}

/** The statement of the rows for a grouping: name, link, clicks, visitors; the top `limit` by clicks, ties by name. */
function rowsQuery(groupBy: GroupBy, tagExpression: string): string {
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
    // The tag's number as the name; the route puts the tag's text back (tagOfLink).
    return `SELECT toString(${tagExpression} AS tag) AS name, '' AS link, ${counts}
              FROM account_link_daily WHERE ${range} AND tag != 0 GROUP BY tag ORDER BY clicks DESC, tag ASC LIMIT {limit:UInt32}`;
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
  tagged: TaggedLinks = new Map(),
  signal?: AbortSignal,
): Promise<AccountStats> {
  const { accountId, groupBy, limit, from, to } = request;
  const tags = tagOfLink(tagged);
  // A tag grouping with no tagged link has no rows: its statement is left out.
  const withRows = groupBy !== 'tag' || tags.names.length > 0;
  const query = `SELECT 'total' AS kind, '' AS name, '' AS link,
                        toUInt64(sum(clicks)) AS clicks, toUInt64(uniqExactMerge(visitors)) AS visitors
                   FROM account_daily
                  WHERE account_id = {account:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                 ${withRows ? `UNION ALL SELECT 'row', name, link, clicks, visitors FROM (${rowsQuery(groupBy, tags.expression)})` : ''}`;
  const rows = await clickhouse
    .query({
      query,
      query_params: { account: accountId, from, to, limit, dimension: groupBy },
      format: 'JSONEachRow',
      // A tag roll-up's statement grows with the account's tagged links (about 40 bytes each): past ClickHouse's
      // default max_query_size (256 KiB, some 6,000 links) the server refuses to parse it. Interim until the tags
      // are read in ClickHouse (decision 0073). The margin is for the FORMAT clause the client appends.
      clickhouse_settings: {
        max_query_size: String(Math.max(DEFAULT_MAX_QUERY_SIZE, Buffer.byteLength(query) + 1024)),
      },
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
      const name = groupBy === 'tag' ? (tags.names[Number(row.name) - 1] ?? '') : row.name;
      stats.rows.push({ name, ...(groupBy === 'link' ? { linkId: row.link } : {}), clicks, uniqueVisitors });
    }
  }
  // The union's parts arrive in any order; ties by name, as each part chose them.
  stats.rows.sort((a, b) => b.clicks - a.clicks || byBytes(a.name, b.name));
  return stats;
}

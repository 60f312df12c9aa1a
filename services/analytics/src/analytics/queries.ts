import type { ClickHouseClient } from '@clickhouse/client';
import { rangeDays, type ClickDays, type Range, type RangeDays } from './range';
import { triggerBuckets, type Bucket } from './trigger-buckets';
import { filteredSummary, type FilteredCount, type FilteredSummary } from './filtered-summary';

export type { Bucket };

export interface LinkStats {
  totalClicks: number;
  uniqueVisitors: number;
  /** Clicks per UTC day: the range's days, any later, and any earlier when it holds the whole life (readLinkStats). */
  daily: Map<string, number>;
  breakdown: { referrer: Bucket[]; country: Bucket[]; device: Bucket[]; browser: Bucket[]; trigger: Bucket[] };
  /** The range's redirects that were not clicks (bots, HEAD, prefetches), by reason and crawler family. */
  filtered: FilteredSummary;
  /** The range's clicks and visitors by the rule, and by the variant, that chose their destination (by position). */
  routes: { rule: RouteCount[]; variant: RouteCount[] };
}

/** The clicks one rule or variant of a link took, and their distinct visitors. */
export interface RouteCount {
  position: number;
  clicks: number;
  uniqueVisitors: number;
}

type RouteKind = keyof LinkStats['routes'];
type RouteRowKind = `${RouteKind}-${'clicks' | 'visitors'}`;
const ROUTE_ROWS: Readonly<Record<RouteRowKind, { kind: RouteKind; field: 'clicks' | 'uniqueVisitors' }>> = {
  'rule-clicks': { kind: 'rule', field: 'clicks' },
  'rule-visitors': { kind: 'rule', field: 'uniqueVisitors' },
  'variant-clicks': { kind: 'variant', field: 'clicks' },
  'variant-visitors': { kind: 'variant', field: 'uniqueVisitors' },
};

const TOP = 10;

type Dimension = keyof LinkStats['breakdown'];

/** One row of the statement below: `kind` says which part of the answer it is. */
interface StatsRow {
  kind: 'visitors' | 'day' | 'filtered' | Dimension | RouteRowKind;
  name: string;
  n: number;
}

const visitorsOf = (wholeLife: boolean) =>
  wholeLife
    ? // Every visitor the link ever had: one stored set, already counted apart.
      `SELECT 'visitors' AS kind, '' AS name, toUInt64(uniqExactMerge(visitors)) AS n
         FROM link_uniques
        WHERE link_id = {link:UUID}`
    : // A range ends on its link's last click day or later (rangeDays): a visitor
      // of the range is one whose last click is on or after its first day. A
      // visitor has a row in each part that saw it; each part is sorted by
      // visitor, so the parts are read in order, merged, and equal neighbours
      // dropped: an exact count with no hash set of every visitor (half the
      // time of uniqExact for 200,000 visitors in two parts).
      `SELECT 'visitors' AS kind, '' AS name, count() AS n
         FROM (SELECT DISTINCT visitor
                 FROM (SELECT visitor FROM link_visitors
                        WHERE link_id = {link:UUID} AND last_day >= {from:Date}
                        ORDER BY visitor))`;

/**
 * Reads a link's analytics for a range of UTC days, from the
 * aggregate tables only (never the raw facts): a handful of rows per day, and
 * at most one row per visitor, however many clicks. One statement for all of
 * it: the engine behind the local endpoint runs one query at a time, so every
 * statement saved is a round trip and a query start saved, and a server runs
 * the parts of one statement in parallel just as well.
 */
export async function readLinkStats(
  clickhouse: ClickHouseClient,
  { linkId, accountId }: { linkId: string; accountId: string },
  { from, to, wholeLife }: Pick<RangeDays, 'from' | 'to' | 'wholeLife'>,
  signal?: AbortSignal,
): Promise<LinkStats> {
  const rows = await clickhouse
    .query({
      // The total is the sum of the daily series. Not `AS day` in the series: an
      // alias is visible in WHERE and would shadow the Date column. Breakdowns:
      // top 10 by count, ties by name, per dimension; every device bucket (each
      // device value is its own LIMIT BY group). The setting keeps the ORDER BY
      // under the visitors' DISTINCT, which the planner would drop as redundant
      // and with it the in-order DISTINCT.
      query: `SELECT kind, name, n FROM (
                ${visitorsOf(wholeLife)}
                UNION ALL
                SELECT 'day', toString(day), toUInt64(sum(clicks))
                  FROM link_daily
                 WHERE link_id = {link:UUID} AND day >= {firstDay:Date}
                 GROUP BY day
                UNION ALL
                SELECT dimension, value, toUInt64(sum(clicks)) AS clicks
                  FROM link_daily_breakdown
                 WHERE link_id = {link:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                   AND dimension IN ('referrer', 'country', 'device', 'browser', 'trigger')
                 GROUP BY dimension, value
                 ORDER BY dimension, clicks DESC, value ASC
                 LIMIT ${TOP} BY dimension, if(dimension = 'device', value, '')
                UNION ALL
                SELECT 'filtered', concat(reason, '/', family), toUInt64(sum(count))
                  FROM redirects_filtered FINAL
                 WHERE account_id = {account:UUID} AND link_id = {link:UUID}
                   AND day BETWEEN {from:Date} AND {to:Date}
                 GROUP BY reason, family
                UNION ALL
                SELECT concat(kind, '-clicks'), toString(position), toUInt64(sum(clicks))
                  FROM link_daily_routes
                 WHERE link_id = {link:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                 GROUP BY kind, position
                UNION ALL
                SELECT concat(kind, '-visitors'), toString(position), toUInt64(uniqExactMerge(visitors))
                  FROM link_daily_routes
                 WHERE link_id = {link:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                 GROUP BY kind, position
              )
              ORDER BY kind, n DESC, name ASC
              SETTINGS query_plan_remove_redundant_sorting = 0`,
      // The filtered redirects are read by account and link: the account leads the table's key, and a
      // row of another account can never be read for this link. FINAL: a redelivered flush counts once.
      // The series is read past the range's ends where a click could be there and change the
      // visitors counted (see readRangeStats): every later day, and before the range when its
      // visitors are the link's whole life. Normally there is none: no extra rows, no extra query.
      query_params: { link: linkId, account: accountId, from, to, firstDay: wholeLife ? '1970-01-01' : from },
      format: 'JSONEachRow',
      abort_signal: signal,
    })
    .then((r) => r.json<StatsRow>());
  const stats: LinkStats = {
    totalClicks: 0,
    uniqueVisitors: 0,
    daily: new Map(),
    breakdown: { referrer: [], country: [], device: [], browser: [], trigger: [] },
    filtered: filteredSummary([]),
    routes: { rule: [], variant: [] },
  };
  const filtered: FilteredCount[] = [];
  const routes = new Map<string, RouteCount>();
  for (const { kind, name, n } of rows) {
    const count = Number(n);
    if (kind in ROUTE_ROWS) {
      const route = ROUTE_ROWS[kind as RouteRowKind];
      const key = `${route.kind}/${name}`;
      let held = routes.get(key);
      if (held === undefined) {
        held = { position: Number(name), clicks: 0, uniqueVisitors: 0 };
        routes.set(key, held);
        stats.routes[route.kind].push(held);
      }
      held[route.field] = count;
    } else if (kind === 'visitors') stats.uniqueVisitors = count;
    else if (kind === 'filtered') {
      const slash = name.indexOf('/');
      filtered.push({ reason: name.slice(0, slash), family: name.slice(slash + 1), count });
    } else if (kind === 'day') {
      stats.daily.set(name, count);
      if (name >= from && name <= to) stats.totalClicks += count;
    } else stats.breakdown[kind as Dimension]?.push({ name, count });
  }
  stats.breakdown.trigger = triggerBuckets(stats.totalClicks, stats.breakdown.trigger);
  stats.filtered = filteredSummary(filtered);
  stats.routes.rule.sort((a, b) => a.position - b.position);
  stats.routes.variant.sort((a, b) => a.position - b.position);
  return stats;
}

/** The first and last days of the series read: the days of the link's clicks within what was read. */
function clickDaysOf(daily: Map<string, number>): ClickDays | undefined {
  let first: string | undefined;
  let last: string | undefined;
  for (const day of daily.keys()) {
    if (first === undefined || day < first) first = day;
    if (last === undefined || day > last) last = day;
  }
  return first !== undefined && last !== undefined ? { first, last } : undefined;
}

/**
 * A link's analytics for a range. The range's days are first taken from the
 * clock and the creation day; the series read with them shows whether any
 * click is dated outside them where it matters (clocks apart across
 * midnight, see rangeDays), and if so the range is read again for the days
 * the clicks give. That second read is for those few links only.
 */
export async function readRangeStats(
  clickhouse: ClickHouseClient,
  link: { linkId: string; accountId: string; createdAt: Date },
  range: Range,
  now: Date,
  signal?: AbortSignal,
): Promise<{ period: RangeDays; stats: LinkStats }> {
  const assumed = rangeDays(range, now, link.createdAt);
  const stats = await readLinkStats(clickhouse, link, assumed, signal);
  const period = rangeDays(range, now, link.createdAt, clickDaysOf(stats.daily));
  if (period.from === assumed.from && period.to === assumed.to && period.wholeLife === assumed.wholeLife) {
    return { period, stats };
  }
  return { period, stats: await readLinkStats(clickhouse, link, period, signal) };
}

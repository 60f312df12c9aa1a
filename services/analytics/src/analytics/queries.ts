import type { ClickHouseClient } from '@clickhouse/client';

export interface Bucket {
  name: string;
  count: number;
}

export interface LinkStats {
  totalClicks: number;
  uniqueVisitors: number;
  daily: Map<string, number>;
  breakdown: { referrer: Bucket[]; country: Bucket[]; device: Bucket[]; browser: Bucket[] };
}

const TOP = 10;

export interface StatsPeriod {
  /** First and last UTC day, `YYYY-MM-DD`; the last is today. */
  from: string;
  to: string;
  /** The period is the link's whole life (the `all` range). */
  wholeLife: boolean;
}

/**
 * Reads a link's analytics for a range of UTC days ending today, from the
 * aggregate tables only (never the raw facts): a handful of rows per day, and
 * one row per visitor, however many clicks.
 */
export async function readLinkStats(
  clickhouse: ClickHouseClient,
  linkId: string,
  { from, to, wholeLife }: StatsPeriod,
): Promise<LinkStats> {
  const params = { link: linkId, from, to };
  // The total is the sum of the daily series, read once: the engine behind the
  // endpoint may run queries one at a time, so each one saved is latency saved.
  const [visitors, daily, breakdown] = await Promise.all([
    clickhouse
      .query({
        query: wholeLife
          ? // Every visitor the link ever had: one set, already counted apart.
            `SELECT toUInt64(uniqExactMerge(visitors)) AS visitors
               FROM link_uniques
              WHERE link_id = {link:UUID}`
          : // Ranges end today: a visitor of the range is one whose last click is on or after its first day.
            `SELECT toUInt64(uniqExact(visitor)) AS visitors
               FROM link_visitors
              WHERE link_id = {link:UUID} AND last_day >= {from:Date}`,
        query_params: params,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ visitors: number }>()),
    clickhouse
      .query({
        // Not `AS day`: an alias is visible in WHERE and would shadow the Date column.
        query: `SELECT toString(day) AS date, toUInt64(sum(clicks)) AS clicks
                  FROM link_daily
                 WHERE link_id = {link:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                 GROUP BY day`,
        query_params: params,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ date: string; clicks: number }>()),
    clickhouse
      .query({
        // Top 10 by count, ties by name; every device bucket.
        query: `SELECT dimension, value, clicks FROM (
                  SELECT dimension, value, toUInt64(sum(clicks)) AS clicks,
                         row_number() OVER (PARTITION BY dimension ORDER BY clicks DESC, value ASC) AS rank
                    FROM link_daily_breakdown
                   WHERE link_id = {link:UUID} AND day BETWEEN {from:Date} AND {to:Date}
                     AND dimension IN ('referrer', 'country', 'device', 'browser')
                   GROUP BY dimension, value
                )
                WHERE rank <= ${TOP} OR dimension = 'device'
                ORDER BY dimension, clicks DESC, value ASC`,
        query_params: params,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ dimension: keyof LinkStats['breakdown']; value: string; clicks: number }>()),
  ]);
  const stats: LinkStats = {
    totalClicks: daily.reduce((sum, d) => sum + Number(d.clicks), 0),
    uniqueVisitors: Number(visitors[0]?.visitors ?? 0),
    daily: new Map(daily.map((d) => [d.date, Number(d.clicks)])),
    breakdown: { referrer: [], country: [], device: [], browser: [] },
  };
  for (const row of breakdown) stats.breakdown[row.dimension]?.push({ name: row.value, count: Number(row.clicks) });
  return stats;
}

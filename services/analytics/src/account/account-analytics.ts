import type { ClickHouseClient } from '@clickhouse/client';
import type { GroupBy } from '../analytics-errors';
import { rangeDays, utcDay, type Range } from '../analytics/range';
import { readAccountClickDays, readAccountStats, type AccountStats } from './account-stats';

export interface AccountAnalyticsRequest {
  /** From the API key, never from the request. */
  accountId: string;
  range: Range;
  groupBy: GroupBy;
  limit: number;
}

export interface AccountAnalytics {
  /** First and last UTC day counted, `YYYY-MM-DD`. */
  from: string;
  to: string;
  stats: AccountStats;
}

/**
 * The account's analytics over a range, with a link's range rule: `7d` is
 * today and the 6 days before, `all` starts on the account's first click day,
 * and a range ends on its last click day when a redirector's clock put that
 * after today (rangeDays).
 */
export async function readAccountAnalytics(
  deps: { clickhouse: ClickHouseClient },
  request: AccountAnalyticsRequest,
  now: Date,
  signal?: AbortSignal,
): Promise<AccountAnalytics> {
  const clickDays = await readAccountClickDays(deps.clickhouse, request.accountId, signal);
  const { from, to } = rangeDays(
    request.range,
    now,
    new Date(`${clickDays?.first ?? utcDay(now)}T00:00:00.000Z`),
    clickDays,
  );
  const stats = await readAccountStats(deps.clickhouse, { ...request, from, to }, signal);
  return { from, to, stats };
}

import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { postgresAuthenticator, type RateLimiter } from '@shortlink/accounts';
import { clickhouseReachable } from '@shortlink/clickhouse';
import { answerWithin } from '@shortlink/http';
import {
  findLinkBySlug,
  findLinkPreview,
  findUnsettledClaimOwner,
  listLinks,
  listPosition,
  postgresReachable,
} from '@shortlink/postgres';
import type { AnalyticsDeps } from './app';
import { readRangeStats } from './analytics/queries';
import { readAccountAnalytics } from './account/account-analytics';
import { EXPORT_LIMITS } from './clicks/export-errors';
import { streamExport } from './clicks/export-query';
import type { AnalyticsConfig } from './config';

/**
 * The longest a read waits on Postgres. These reads take milliseconds (a page
 * of the list is one index range); a Postgres that stalls (frozen,
 * partitioned away) answers none of them, and without a bound a request
 * would wait as long as the stall (or until the entry point gave up on it).
 * Bounded, it is a 503 with Retry-After, as an outage.
 */
const POSTGRES_READ_MS = 3000;
const bounded = <T>(read: Promise<T>): Promise<T> => answerWithin(read, POSTGRES_READ_MS, 'Postgres');

/**
 * How long a link's analytics wait for ClickHouse: a stalled server would leave
 * the request unanswered for the client's 30 s (then a 500), and the entry
 * point, retrying its 10 s timeouts, for 40 s with no answer at all. Far
 * above a read's usual tens of milliseconds; past it, a 503 with
 * Retry-After, and the query is withdrawn so its connection is free again.
 */
const CLICKHOUSE_READ_MS = 5000;

/** What the analytics API takes of its settings (see config.ts). */
export type AnalyticsSettings = Pick<AnalyticsConfig, 'PUBLIC_BASE_URL'>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface AnalyticsStores {
  pool: Pool;
  clickhouse: ClickHouseClient;
  /** Each key's request count (openRateLimiter): one per process, shared with the write API when it runs here too. */
  rateLimiter: RateLimiter;
}

/** The analytics API from its settings: what its own entry point, `npm start` and the tests all run. */
export function composeAnalytics(
  settings: AnalyticsSettings,
  { pool, clickhouse, rateLimiter }: AnalyticsStores,
): AnalyticsDeps {
  return {
    authenticate: postgresAuthenticator(pool),
    rateLimiter,
    findLink: (slug) => bounded(findLinkBySlug(pool, slug)),
    findUnsettledOwner: (slug) => bounded(findUnsettledClaimOwner(pool, slug)),
    findPreview: (linkId) => bounded(findLinkPreview(pool, linkId)),
    listLinks: (query) => bounded(listLinks(pool, query)),
    listPosition: (accountId, linkId) => bounded(listPosition(pool, accountId, linkId)),
    publicBaseUrl: settings.PUBLIC_BASE_URL,
    readStats(link, range, now) {
      const withdraw = new AbortController();
      return answerWithin(
        readRangeStats(clickhouse, link, range, now, withdraw.signal),
        CLICKHOUSE_READ_MS,
        'ClickHouse',
      ).finally(() => withdraw.abort());
    },
    readAccountAnalytics(request, now) {
      const withdraw = new AbortController();
      return answerWithin(
        readAccountAnalytics({ clickhouse }, request, now, withdraw.signal),
        CLICKHOUSE_READ_MS,
        'ClickHouse',
      ).finally(() => withdraw.abort());
    },
    exportLimiter: rateLimiter.withPolicy({
      name: 'export',
      windowSeconds: EXPORT_LIMITS.windowSeconds,
      limits: EXPORT_LIMITS.perWindow,
    }),
    // Streamed: no deadline on the whole, and the client's disconnect withdraws it.
    exportClicks: (query, signal) => streamExport(clickhouse, query, signal),
    now: () => new Date(),
    dependencies: [
      { name: 'postgres', check: postgresReachable(pool) },
      { name: 'clickhouse', check: clickhouseReachable(clickhouse) },
    ],
  };
}

import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { postgresAuthenticator, type RateLimiter } from '@shortlink/accounts';
import { clickhouseReachable } from '@shortlink/clickhouse';
import { findLinkBySlug, findLinkPreview, listLinks, listPosition, postgresReachable } from '@shortlink/postgres';
import type { AnalyticsDeps } from './app';
import type { AnalyticsConfig } from './config';

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
    findLink: (slug) => findLinkBySlug(pool, slug),
    findPreview: (linkId) => findLinkPreview(pool, linkId),
    listLinks: (query) => listLinks(pool, query),
    listPosition: (accountId, linkId) => listPosition(pool, accountId, linkId),
    publicBaseUrl: settings.PUBLIC_BASE_URL,
    clickhouse,
    now: () => new Date(),
    dependencies: [
      { name: 'postgres', check: postgresReachable(pool) },
      { name: 'clickhouse', check: clickhouseReachable(clickhouse) },
    ],
  };
}

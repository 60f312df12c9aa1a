import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { createAuthenticator, findAccountByKeyHash } from '@shortlink/accounts';
import type { AnalyticsDeps } from './app';
import { postgresLinkDirectory } from './analytics/link-directory';

export interface AnalyticsResources {
  pool: Pool;
  clickhouse: ClickHouseClient;
}

export function wireAnalytics({ pool, clickhouse }: AnalyticsResources): AnalyticsDeps {
  return {
    authenticate: createAuthenticator({
      findAccountByKeyHash: (hash) => findAccountByKeyHash(pool, hash),
      now: Date.now,
      cacheTtlMs: 30_000,
      cacheSize: 10_000,
    }),
    findLink: postgresLinkDirectory(pool),
    clickhouse,
    now: () => new Date(),
  };
}

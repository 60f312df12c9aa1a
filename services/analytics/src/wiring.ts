import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { postgresAuthenticator } from '@shortlink/accounts';
import { findLinkBySlug } from '@shortlink/postgres';
import type { AnalyticsDeps } from './app';

export interface AnalyticsResources {
  pool: Pool;
  clickhouse: ClickHouseClient;
}

export function wireAnalytics({ pool, clickhouse }: AnalyticsResources): AnalyticsDeps {
  return {
    authenticate: postgresAuthenticator(pool),
    findLink: (slug) => findLinkBySlug(pool, slug),
    clickhouse,
    now: () => new Date(),
  };
}

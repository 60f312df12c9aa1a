import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { postgresAuthenticator } from '@shortlink/accounts';
import { findLinkBySlug, findLinkPreview } from '@shortlink/postgres';
import type { AnalyticsDeps } from './app';

export interface AnalyticsResources {
  pool: Pool;
  clickhouse: ClickHouseClient;
  publicBaseUrl: string;
}

export function wireAnalytics({ pool, clickhouse, publicBaseUrl }: AnalyticsResources): AnalyticsDeps {
  return {
    authenticate: postgresAuthenticator(pool),
    findLink: (slug) => findLinkBySlug(pool, slug),
    findPreview: (linkId) => findLinkPreview(pool, linkId),
    publicBaseUrl,
    clickhouse,
    now: () => new Date(),
  };
}

import type { ClickHouseClient } from '@clickhouse/client';
import { createClickHouse, ensureDatabase } from './client';

/** A client scoped to the project's database, which is created if missing. */
export async function openClickHouse(
  config: { CLICKHOUSE_URL: string; CLICKHOUSE_DATABASE: string; CLICKHOUSE_USER: string; CLICKHOUSE_PASSWORD: string },
  applicationName: string,
): Promise<ClickHouseClient> {
  const options = {
    url: config.CLICKHOUSE_URL,
    database: config.CLICKHOUSE_DATABASE,
    username: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    applicationName,
  };
  await ensureDatabase(options);
  return createClickHouse(options);
}

import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';

export interface ClickHouseOptions {
  url: string;
  database: string;
  username: string;
  password: string;
  applicationName: string;
  /** Per request; long loads (a benchmark's bulk insert) need more than the default 30 s. */
  requestTimeoutMs?: number;
}

export function createClickHouse(options: ClickHouseOptions): ClickHouseClient {
  return createClient({
    url: options.url,
    database: options.database,
    username: options.username,
    password: options.password,
    application: options.applicationName,
    request_timeout: options.requestTimeoutMs ?? 30_000,
    clickhouse_settings: {
      // Timestamps cross the wire as 'YYYY-MM-DD hh:mm:ss.sss' in UTC.
      date_time_input_format: 'best_effort',
      // Counts come back as JSON numbers whatever the server's default (it
      // changed across ClickHouse versions); they stay far below 2^53.
      output_format_json_quote_64bit_integers: 0,
    },
    // Callers log failures with their own context; the client's own error log would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/** The target database must exist before a client scoped to it can run anything. */
export async function ensureDatabase(options: ClickHouseOptions): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.database)) {
    throw new Error(`Invalid ClickHouse database name: ${options.database}`);
  }
  const admin = createClient({
    url: options.url,
    username: options.username,
    password: options.password,
    application: options.applicationName,
  });
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${options.database}` });
  } finally {
    await admin.close();
  }
}

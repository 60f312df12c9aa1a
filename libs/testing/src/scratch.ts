import { randomBytes } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { Client } from 'pg';
import { LOCAL_REDIS_URL, type InfraEnv } from './infra-env';

/** A short random suffix for names that must not collide between test files or runs. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** Reads the connection settings the global setup exported. */
export function infraEnv(env: Readonly<Record<string, string | undefined>>): InfraEnv {
  const { KAFKA_BROKERS, DATABASE_URL, CLICKHOUSE_URL } = env;
  if (!KAFKA_BROKERS || !DATABASE_URL || !CLICKHOUSE_URL) {
    throw new Error('Integration settings missing: run integration tests through jest (test/global-setup.ts)');
  }
  return {
    KAFKA_BROKERS,
    DATABASE_URL,
    CLICKHOUSE_URL,
    CLICKHOUSE_USER: env.CLICKHOUSE_USER ?? 'default',
    CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD ?? '',
    REDIS_URL: env.REDIS_URL ?? LOCAL_REDIS_URL,
  };
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** An empty Postgres database on the test server, so each test file starts clean. */
export async function createScratchPostgres(databaseUrl: string): Promise<ScratchDatabase> {
  const name = `shortlink_test_${uniqueSuffix()}`;
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** An empty ClickHouse database on the test server. */
export async function createScratchClickHouse(env: InfraEnv): Promise<Omit<ScratchDatabase, 'url'>> {
  const name = `shortlink_test_${uniqueSuffix()}`;
  const admin = createClient({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
  });
  try {
    await admin.command({ query: `CREATE DATABASE ${name}` });
  } finally {
    await admin.close();
  }
  return {
    name,
    async drop() {
      const client = createClient({
        url: env.CLICKHOUSE_URL,
        username: env.CLICKHOUSE_USER,
        password: env.CLICKHOUSE_PASSWORD,
      });
      try {
        await client.command({ query: `DROP DATABASE IF EXISTS ${name}` });
      } finally {
        await client.close();
      }
    },
  };
}

/** Polls until `check` returns a value other than undefined, or fails after the timeout. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

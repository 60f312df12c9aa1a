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
        const left = await connectionsLeft(client, name);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        if (left.length > 0) throw new Error(`${name} was dropped with connections still open:\n${left.join('\n')}`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * The connections to a scratch database that its test left open (a pool or client never ended), waiting a moment
 * for those already closing. Dropped WITH (FORCE), such a connection is ended with 57P01, and a pool without an
 * error listener throws that into whichever test runs next in the worker: a leak is named in its own file instead.
 */
async function connectionsLeft(client: Client, database: string): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const { rows } = await client.query<{ application_name: string; state: string | null; query: string }>(
      `SELECT application_name, state, left(query, 200) AS query FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [database],
    );
    if (rows.length === 0 || Date.now() > deadline) {
      return rows.map((r) => `  ${r.application_name || '(no application_name)'} ${r.state ?? ''}: ${r.query}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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

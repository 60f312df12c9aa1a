import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { createAccountWithKey } from '@shortlink/accounts';
import { CLICKHOUSE_MIGRATIONS_DIR, createClickHouse, migrateClickHouse } from '@shortlink/clickhouse';
import { kafkaNames, openKafka, type EventLogClient, type KafkaNames } from '@shortlink/event-log';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import {
  createScratchClickHouse,
  createScratchPostgres,
  startProcess,
  uniqueSuffix,
  type InfraEnv,
  type RunningProcess,
} from '@shortlink/testing';
import { quiet } from './measure';

export type ServiceName = 'redirector' | 'write-api' | 'projector' | 'analytics' | 'preview-worker';

/**
 * One benchmark run's own corner of the local stack: a scratch Postgres
 * database, a scratch ClickHouse database and topics under a fresh prefix, so
 * runs never see each other's data. Services run as separate processes from
 * their built entry points, as in production.
 */
export interface BenchStack {
  pool: Pool;
  clickhouse: ClickHouseClient;
  kafka: EventLogClient;
  names: KafkaNames;
  /** An API key of a Pro account, and that account. */
  key: string;
  accountId: string;
  /** What the services under test are started with: the scratch databases and the topic prefix. */
  env: Record<string, string>;
  start(service: ServiceName, extra?: Record<string, string>, nodeArgs?: string[]): Promise<RunningProcess>;
  startEntry(
    entry: string,
    args: string[],
    extra?: Record<string, string>,
    nodeArgs?: string[],
  ): Promise<RunningProcess>;
  close(): Promise<void>;
}

export async function openBenchStack(
  root: string,
  env: InfraEnv,
  profileDir?: string,
  nodeArgsForAll: string[] = [],
): Promise<BenchStack> {
  const db = await createScratchPostgres(env.DATABASE_URL);
  const ch = await createScratchClickHouse(env);
  const pool = await openDatabase({
    connectionString: db.url,
    max: 8,
    applicationName: 'bench',
    migrationsDir: MIGRATIONS_DIR,
  });
  const clickhouse = createClickHouse({
    url: env.CLICKHOUSE_URL,
    database: ch.name,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    applicationName: 'bench',
    requestTimeoutMs: 600_000,
  });
  await migrateClickHouse(clickhouse, CLICKHOUSE_MIGRATIONS_DIR);
  const prefix = `bench-${uniqueSuffix()}.`;
  const names = kafkaNames(prefix);
  const kafka = await openKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'bench', logger: quiet, names });
  const { key, account } = await createAccountWithKey(pool, { accountName: 'bench', keyName: 'bench', plan: 'pro' });
  const processEnv = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: env.KAFKA_BROKERS,
    KAFKA_TOPIC_PREFIX: prefix,
    CLICKHOUSE_URL: env.CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: ch.name,
    CLICKHOUSE_USER: env.CLICKHOUSE_USER,
    CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD,
    REDIS_URL: env.REDIS_URL,
    // The load is one Pro key's, thousands of requests a second: each is counted in Redis as
    // any request is (the cost measured), under a limit it never reaches.
    RATE_LIMIT_PRO_PER_MINUTE: '10000000',
    VISITOR_HASH_SECRET: 'bench-visitor-secret-0123456789',
    PUBLIC_BASE_URL: 'https://sho.rt',
    LOG_LEVEL: 'warn',
  };
  const running = new Set<RunningProcess>();
  const startEntry = async (
    entry: string,
    args: string[],
    extra: Record<string, string> = {},
    nodeArgs: string[] = [],
  ) => {
    // With a profile directory, every service writes a V8 CPU profile there when it stops.
    const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const proc = await startProcess(
      entry,
      { ...processEnv, ...extra },
      { root, args: () => args, nodeArgs: [...profiling, ...nodeArgsForAll, ...nodeArgs] },
    );
    running.add(proc);
    const stop = proc.stop.bind(proc);
    proc.stop = async () => {
      running.delete(proc);
      return stop();
    };
    return proc;
  };
  return {
    pool,
    clickhouse,
    kafka,
    names,
    key,
    accountId: account.id,
    env: processEnv,
    start: (service, extra, nodeArgs) => startEntry(`services/${service}/dist/main.js`, [], extra, nodeArgs),
    startEntry,
    async close() {
      await Promise.all([...running].map((p) => p.stop()));
      await pool.end();
      await clickhouse.close();
      await db.drop();
      await ch.drop();
    },
  };
}

/** Creates links through the write API, `concurrency` at a time; returns slug → destination. */
export async function createLinks(
  writeApiUrl: string,
  key: string,
  count: number,
  prefix: string,
  concurrency = 16,
): Promise<Map<string, { id: string; destination: string }>> {
  const links = new Map<string, { id: string; destination: string }>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const slug = `${prefix}-${i}`;
        const destination = `https://example.com/${prefix}/${i}`;
        const res = await fetch(`${writeApiUrl}/api/v1/links`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: destination, customSlug: slug }),
        });
        if (res.status !== 201) throw new Error(`creating ${slug}: HTTP ${res.status} ${await res.text()}`);
        links.set(slug, { id: ((await res.json()) as { id: string }).id, destination });
      }
    }),
  );
  return links;
}

/** Polls until `read` returns the same number twice 2 s apart, or `target` is reached; returns the last value. */
export async function settle(read: () => Promise<number>, target: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const value = await read();
    if (value >= target) return value;
    if (value !== last) {
      last = value;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 5000) {
      return value;
    }
    if (Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A single `n` out of ClickHouse (`SELECT count() AS n …`). */
export async function scalar(clickhouse: ClickHouseClient, query: string): Promise<number> {
  const rs = await clickhouse.query({ query, format: 'JSONEachRow' });
  return Number((await rs.json<{ n: number }>())[0]?.n ?? 0);
}

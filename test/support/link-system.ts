import type { ClickHouseClient } from '@clickhouse/client';
import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import type { Pool } from 'pg';
import { createAccountWithKey, openRateLimiter, type Plan } from '@shortlink/accounts';
import { buildProcessServer, createLogger, type ServiceModule } from '@shortlink/http';
import { loadConfig } from '@shortlink/config';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createKafka, kafkaNames, openKafka, type EventLogClient, type KafkaNames } from '@shortlink/event-log';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import type { FetchPolicy } from '@shortlink/service-preview-worker';
import { composeProjector } from '@shortlink/service-projector';
import { composeSystem, systemConfig, type SystemSettings, type SystemStores } from '@shortlink/standalone';
import { CLICKHOUSE_MIGRATIONS_DIR, createClickHouse, migrateClickHouse } from '@shortlink/clickhouse';
import {
  createScratchClickHouse,
  createScratchPostgres,
  eventually,
  infraEnv,
  uniqueSuffix,
  type ScratchDatabase,
} from '@shortlink/testing';
import { buildOnce, startProcess, type RunningProcess } from './processes';

export const PUBLIC_BASE_URL = 'https://sho.rt';
/** Silent unless TEST_LOG_LEVEL asks otherwise (debugging a failing test). */
export const silentLogger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');

/** A scratch database and namespaced topics: what one test file owns. */
export interface TestInfra {
  db: ScratchDatabase;
  pool: Pool;
  clickhouse: ClickHouseClient;
  /** The scratch ClickHouse database behind `clickhouse`, for child processes. */
  clickhouseDatabase: string;
  /** The event log the services are given. */
  log: EventLogClient;
  /** A plain kafkajs client on the same cluster: what a data team or a hostile producer would use. */
  kafka: Kafka;
  names: KafkaNames;
  /** The KAFKA_TOPIC_PREFIX behind `names`, for child processes. */
  topicPrefix: string;
  brokers: string[];
  close(): Promise<void>;
}

export async function openTestInfra(): Promise<TestInfra> {
  const env = infraEnv(process.env);
  const db = await createScratchPostgres(env.DATABASE_URL);
  const pool = await openDatabase({
    connectionString: db.url,
    max: 20,
    applicationName: 'test',
    migrationsDir: MIGRATIONS_DIR,
  });
  const chScratch = await createScratchClickHouse(env);
  const clickhouse = createClickHouse({
    url: env.CLICKHOUSE_URL,
    database: chScratch.name,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    applicationName: 'test',
  });
  await migrateClickHouse(clickhouse, CLICKHOUSE_MIGRATIONS_DIR);
  const topicPrefix = `test-${uniqueSuffix()}.`;
  const names = kafkaNames(topicPrefix);
  const brokers = env.KAFKA_BROKERS.split(',');
  const log = await openKafka({ brokers, clientId: 'test', logger: silentLogger, names });
  const kafka = createKafka({ brokers, clientId: 'test-outsider' });
  return {
    db,
    pool,
    clickhouse,
    clickhouseDatabase: chScratch.name,
    log,
    kafka,
    names,
    topicPrefix,
    brokers,
    async close() {
      await pool.end();
      await db.drop();
      await clickhouse.close();
      await chScratch.drop();
    },
  };
}

export async function issueKey(pool: Pool, plan: Plan): Promise<string> {
  return (await createAccountWithKey(pool, { accountName: `acct-${plan}`, keyName: 'test', plan })).key;
}

/** Resolves once `count` redirectors hold their lease: each takes it as it starts listening for changes. */
export async function redirectorsLeased(pool: Pool, count: number): Promise<void> {
  await eventually(async () => {
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM redirector_leases WHERE expires_at > now()',
    );
    return rows[0]?.n === count ? true : undefined;
  });
}

export interface LinkSystem {
  infra: TestInfra;
  app: FastifyInstance;
  modules: ServiceModule[];
  proKey: string;
  freeKey: string;
  /** Sends the redirector's queued clicks to Kafka now. */
  flushClicks(): Promise<void>;
  close(): Promise<void>;
}

/** The settings a test system runs with: the same schema `npm start` reads, from a test's environment. */
export function testSettings(infra: TestInfra, env: Record<string, string> = {}): SystemSettings {
  return loadConfig(systemConfig, {
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    DATABASE_URL: infra.db.url,
    PUBLIC_BASE_URL: PUBLIC_BASE_URL,
    VISITOR_HASH_SECRET: 'test-visitor-secret-0123456789',
    ...env,
  });
}

const storesOf = (infra: TestInfra, settings: SystemSettings = testSettings(infra)): SystemStores => ({
  pool: infra.pool,
  kafka: infra.log,
  names: infra.names,
  clickhouse: infra.clickhouse,
  logger: silentLogger,
  // No REDIS_URL in the test's settings: counted in memory, as `npm start` does.
  rateLimiter: openRateLimiter(settings, silentLogger),
  metrics: createMetricsRegistry(),
});

/**
 * The projector alone, composed as `npm start` composes it: with settings of its own (`PROJECTIONS`),
 * its own consumer groups (a replay beside the live projector) or its own database (a reference).
 */
export function projectorModule(
  infra: TestInfra,
  { env, names, pool }: { env?: Record<string, string>; names?: KafkaNames; pool?: Pool } = {},
): ServiceModule {
  const settings = testSettings(infra, env);
  return composeProjector(settings, {
    ...storesOf(infra, settings),
    ...(names === undefined ? {} : { names }),
    ...(pool === undefined ? {} : { pool }),
  });
}

export interface LinkSystemOptions {
  /** Runs the preview worker too, with this fetch policy. */
  previews?: Pick<FetchPolicy, 'allowPrivateNetworks'> & Partial<FetchPolicy>;
}

/**
 * Every service in one process, composed by `composeSystem` exactly as
 * `npm start` composes it (clicks on the worker thread, as in production),
 * served through `inject` or a port.
 */
export async function startLinkSystem(options: LinkSystemOptions = {}): Promise<LinkSystem> {
  buildOnce(); // the click worker thread runs the built code
  const infra = await openTestInfra();
  const { previews } = options;
  const settings = testSettings(infra, {
    PREVIEW_ALLOW_PRIVATE_NETWORKS: String(previews?.allowPrivateNetworks ?? false),
  });
  const stores = storesOf(infra, settings);
  const system = await composeSystem(settings, stores, {
    previews: previews !== undefined,
    previewSeams: { retry: { maxAttempts: 2, firstBackoffMs: 50 }, fetchPolicy: previews },
  });
  const { modules } = system;
  // Behind a proxy, as in production: the client IP comes from X-Forwarded-For.
  const app = await buildProcessServer(
    modules,
    { name: 'test', trustProxy: true, logger: silentLogger, metrics: stores.metrics },
    () => true,
  );
  for (const m of modules) await m.start?.();
  const [proKey, freeKey] = [await issueKey(infra.pool, 'pro'), await issueKey(infra.pool, 'free')];
  return {
    infra,
    app,
    modules,
    proKey,
    freeKey,
    flushClicks: () => system.flushClicks(),
    async close() {
      await app.close();
      for (const m of [...modules].reverse()) await m.stop?.();
      await infra.close();
    },
  };
}

/** `npm start` on the test's Kafka topics, Postgres and ClickHouse databases: the servers mode, as a process. */
export function startServersProcess(infra: TestInfra, env: Record<string, string> = {}): Promise<RunningProcess> {
  buildOnce();
  return startProcess('deploy/standalone/dist/main.js', {
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    DATABASE_URL: infra.db.url,
    CLICKHOUSE_URL: infraEnv(process.env).CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: infra.clickhouseDatabase,
    ...env,
  });
}

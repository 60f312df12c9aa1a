import type { ClickHouseClient } from '@clickhouse/client';
import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import type { Pool } from 'pg';
import { createAccountWithKey, type Plan } from '@shortlink/accounts';
import { buildProcessServer, createLogger, type ServiceModule } from '@shortlink/http';
import { createIdempotentProducer, kafkaNames, openKafka, type KafkaNames } from '@shortlink/kafka';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createAnalytics, wireAnalytics } from '@shortlink/service-analytics';
import { createPreviewWorker, previewUserAgent, type FetchPolicy } from '@shortlink/service-preview-worker';
import { createProjector } from '@shortlink/service-projector';
import { createRedirector, wireRedirector } from '@shortlink/service-redirector';
import { createWriteApi, wireWriteApi } from '@shortlink/service-write-api';
import { CLICKHOUSE_MIGRATIONS_DIR, createClickHouse, migrateClickHouse } from '@shortlink/clickhouse';
import {
  createScratchClickHouse,
  createScratchPostgres,
  infraEnv,
  uniqueSuffix,
  type ScratchDatabase,
} from '@shortlink/testing';

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
  const kafka = await openKafka({ brokers, clientId: 'test', logger: silentLogger, names });
  return {
    db,
    pool,
    clickhouse,
    clickhouseDatabase: chScratch.name,
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

export function projectorModule(infra: TestInfra): ServiceModule {
  const { kafka, names, pool, clickhouse } = infra;
  return createProjector({
    kafka,
    names,
    pool,
    clickhouse,
    newProducer: () => createIdempotentProducer(kafka),
    logger: silentLogger,
  });
}

export interface LinkSystemOptions {
  /** Runs the preview worker too, with this fetch policy. */
  previews?: Pick<FetchPolicy, 'allowPrivateNetworks'> & Partial<FetchPolicy>;
}

/** The write API, projector and redirector (and optionally the preview worker) in one process. */
export async function startLinkSystem(options: LinkSystemOptions = {}): Promise<LinkSystem> {
  const infra = await openTestInfra();
  const { kafka, names, pool, db } = infra;
  // Wired as deploy/standalone wires them.
  const redirector = await wireRedirector({
    pool,
    databaseUrl: db.url,
    kafka,
    names,
    visitorSecret: 'test-visitor-secret-0123456789',
    logger: silentLogger,
  });
  const writeApi = wireWriteApi({
    pool,
    kafka,
    names,
    publicBaseUrl: PUBLIC_BASE_URL,
    logger: silentLogger,
    onLinkCommitted: (slug) => redirector.cache.forget(slug),
  });
  const modules: ServiceModule[] = [
    projectorModule(infra),
    createWriteApi(writeApi),
    createAnalytics(wireAnalytics({ pool, clickhouse: infra.clickhouse, publicBaseUrl: PUBLIC_BASE_URL })),
    ...(options.previews
      ? [
          createPreviewWorker({
            kafka,
            names,
            newProducer: () => createIdempotentProducer(kafka),
            fetchPolicy: { userAgent: previewUserAgent(PUBLIC_BASE_URL), ...options.previews },
            retry: { maxAttempts: 2, firstBackoffMs: 50 },
            logger: silentLogger,
          }),
        ]
      : []),
    createRedirector(redirector),
  ];
  // Behind a proxy, as in production: the client IP comes from X-Forwarded-For.
  const app = await buildProcessServer(modules, { name: 'test', trustProxy: true, logger: silentLogger }, () => true);
  for (const m of modules) await m.start?.();
  const [proKey, freeKey] = [await issueKey(pool, 'pro'), await issueKey(pool, 'free')];
  return {
    infra,
    app,
    modules,
    proKey,
    freeKey,
    flushClicks: () => redirector.clickQueue?.flush() ?? Promise.resolve(),
    async close() {
      await app.close();
      for (const m of [...modules].reverse()) await m.stop?.();
      await infra.close();
    },
  };
}

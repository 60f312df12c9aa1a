import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZodObject } from 'zod';
import { createMetricsRegistry } from '@shortlink/metrics';
import { analyticsConfig, composeAnalytics } from '@shortlink/service-analytics';
import { composePreviewWorker, previewWorkerConfig } from '@shortlink/service-preview-worker';
import { composeProjector, projectorConfig } from '@shortlink/service-projector';
import { composeRedirector, redirectorConfig } from '@shortlink/service-redirector';
import { composeWebhookDispatcher, webhookDispatcherConfig } from '@shortlink/service-webhook-dispatcher';
import { composeWriteApi, writeApiConfig } from '@shortlink/service-write-api';
import { composeSystem, systemConfig, type SystemStores } from './system';

/**
 * Every documented setting reaches the code, in `npm start` and in each
 * service's own entry point: it is read from the environment by the entry's
 * schema, and then either opens a store (the same functions in every entry
 * point) or is read by the service's compose function, which both kinds of
 * entry point call. A setting declared and never passed on (CLICK_BATCH_SIZE
 * under `npm start`, once) fails here.
 */
const ROOT = join(__dirname, '..', '..', '..');

/** The documented settings: every variable `.env.example` names, set or commented out. */
const documented = readFileSync(join(ROOT, '.env.example'), 'utf8')
  .split('\n')
  .map((line) => /^#?\s?([A-Z][A-Z0-9_]+)=/.exec(line)?.[1])
  .filter((name): name is string => name !== undefined);

/** Read by the deployment choice and the test harness, not by a service. */
const OUTSIDE_SERVICES = ['DATA_DIR', 'TEST_INFRA'];
/** Read where every entry point opens its HTTP server, logger and stores (processOptionsFrom, createLogger, openServiceDatabase, openKafka, kafkaNames, openClickHouse, openRateLimiter). */
const OPEN_STORES = [
  'HOST',
  'PORT',
  'TRUST_PROXY',
  'SHUTDOWN_DRAIN_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'MAX_REQUESTS_IN_FLIGHT',
  'MAX_EVENT_LOOP_DELAY_MS',
  'CORS_ORIGINS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'KAFKA_BROKERS',
  'KAFKA_TOPIC_PREFIX',
  'CLICKHOUSE_URL',
  'CLICKHOUSE_DATABASE',
  'CLICKHOUSE_USER',
  'CLICKHOUSE_PASSWORD',
  'REDIS_URL',
  'RATE_LIMIT_FREE_PER_MINUTE',
  'RATE_LIMIT_PRO_PER_MINUTE',
  'RATE_LIMIT_REDIS_TIMEOUT_MS',
];

const keysOf = (schema: ZodObject) => Object.keys(schema.shape).sort();

const SERVICES = {
  redirector: { config: redirectorConfig, compose: composeRedirector },
  'write-api': { config: writeApiConfig, compose: composeWriteApi },
  projector: { config: projectorConfig, compose: composeProjector },
  analytics: { config: analyticsConfig, compose: composeAnalytics },
  'preview-worker': { config: previewWorkerConfig, compose: composePreviewWorker },
  'webhook-dispatcher': { config: webhookDispatcherConfig, compose: composeWebhookDispatcher },
} as const;

/** Stores that are never used: composing touches no I/O, it only wires. */
function inertStores(): SystemStores {
  const client = { producer: () => ({}), admin: () => ({}), consumer: () => ({}) };
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  return {
    pool: {},
    kafka: client,
    names: { topics: { links: 'l', clicks: 'c', deadLetter: 'd' }, groups: {} },
    clickhouse: {},
    logger,
    rateLimiter: { withPolicy: () => ({}) },
    metrics: createMetricsRegistry({ processMetrics: false }),
  } as unknown as SystemStores;
}

/** Settings parsed from a full environment, and the names the code reads of them. */
function watchedSettings<T extends object>(schema: ZodObject): { settings: T; read: Set<string> } {
  const parsed = schema.parse({
    VISITOR_HASH_SECRET: 'a-visitor-secret-for-this-test',
    PUBLIC_BASE_URL: 'https://sho.rt',
  }) as T;
  const read = new Set<string>();
  const settings = new Proxy(parsed, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { settings, read };
}

describe('settings', () => {
  it('are all documented, and every documented one is read by npm start and by some service entry point', () => {
    const settings = documented.filter((name) => !OUTSIDE_SERVICES.includes(name)).sort();
    expect(keysOf(systemConfig)).toEqual(settings);
    const perService = new Set(Object.values(SERVICES).flatMap((s) => keysOf(s.config)));
    expect([...perService].sort()).toEqual(settings);
  });

  it.each(Object.keys(SERVICES))('reach the %s from its own entry point', async (name) => {
    const { config, compose } = SERVICES[name as keyof typeof SERVICES];
    const { settings, read } = watchedSettings(config);
    await (compose as (s: unknown, stores: SystemStores) => unknown)(settings, inertStores());
    const serviceSettings = keysOf(config).filter((key) => !OPEN_STORES.includes(key));
    expect(serviceSettings.filter((key) => !read.has(key))).toEqual([]);
  });

  it('reach every service of npm start', async () => {
    const { settings, read } = watchedSettings(systemConfig);
    await composeSystem(settings as never, inertStores());
    const serviceSettings = keysOf(systemConfig).filter((key) => !OPEN_STORES.includes(key));
    expect(serviceSettings.filter((key) => !read.has(key))).toEqual([]);
  });
});

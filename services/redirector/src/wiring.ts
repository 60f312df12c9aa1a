import type { Pool } from 'pg';
import { type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/event-log';
import { answerWithin, isDependencyOutage } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import { instanceSecret, postgresReachable, servedDomain, withReadTimeout } from '@shortlink/postgres';
import { SERVICE_NAME, type RedirectorDeps } from './app';
import type { RedirectorConfig } from './config';
import { clickEventIds } from './clicks/click-event-id';
import { createClickRecorder } from './clicks/click-recorder';
import { inProcessClickSink, type ClickSink } from './clicks/click-sink';
import { loadCountryLookup, type CountryOf } from './clicks/country';
import { rememberedCountries } from './remembered-countries';
import { workerClickSink } from './clicks/worker-click-sink';
import { FilteredTally } from './clicks/filtered-tally';
import { filteredSender } from './clicks/filtered-sender';
import { ServedDomainMap } from './domains/served-domain-map';
import { listenForLinkChanges } from './invalidation';
import { LinkCache } from './link-cache';
import { POSTGRES_ANSWER_MS, postgresLookup } from './lookup';
import { gateLookupsThroughOutages } from './outage-gate';
import { countTrustLosses, registerRedirectorMetrics, timeLookups } from './redirector-metrics';

/** The time the clicks still held get to reach Kafka when the module is stopped without a deadline. */
const CLICKS_AT_CLOSE_MS = 5_000;
/** What the worker keeps of the close's time to disconnect its producer once its clicks are sent. */
const WORKER_DISCONNECT_MS = 1_000;

/** What the redirector takes of its settings (see config.ts). */
export type RedirectorSettings = Pick<
  RedirectorConfig,
  | 'DATABASE_URL'
  | 'KAFKA_BROKERS'
  | 'VISITOR_HASH_SECRET'
  | 'CLICK_PATH'
  | 'REDIRECT_CACHE_SIZE'
  | 'ROBOTS_ALLOW_REDIRECTS'
>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface RedirectorStores {
  pool: Pool;
  kafka: EventLogClient;
  names: KafkaNames;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/**
 * The redirector from its settings: what its own entry point, `npm start`
 * and the tests all run.
 */
export async function composeRedirector(
  settings: RedirectorSettings,
  stores: RedirectorStores,
): Promise<RedirectorDeps> {
  const deps = await wireRedirector({
    ...stores,
    databaseUrl: settings.DATABASE_URL,
    visitorSecret: settings.VISITOR_HASH_SECRET,
    cacheSize: settings.REDIRECT_CACHE_SIZE,
    clickWorker:
      settings.CLICK_PATH === 'worker-thread'
        ? { brokers: settings.KAFKA_BROKERS, clientId: `${SERVICE_NAME}-clicks` }
        : undefined,
  });
  return { ...deps, robotsAllowRedirects: settings.ROBOTS_ALLOW_REDIRECTS };
}

interface RedirectorResources extends RedirectorStores {
  databaseUrl: string;
  /** VISITOR_HASH_SECRET; when absent, the installation's own secret kept in Postgres. */
  visitorSecret: string | undefined;
  /** Links held in memory (REDIRECT_CACHE_SIZE). */
  cacheSize: number;
  /** Set: clicks are built and produced on a worker thread with its own connection. Unset: on this thread. */
  clickWorker?: { brokers: string[]; clientId: string };
}

async function wireRedirector(resources: RedirectorResources): Promise<RedirectorDeps> {
  const { pool, kafka, names, logger, metrics } = resources;
  const visitorSecret = resources.visitorSecret ?? (await instanceSecret(pool, 'visitor-hash'));
  const lookups = gateLookupsThroughOutages(postgresLookup(pool, visitorSecret), {
    // Only while away, so its bound costs nothing when Postgres is well: half a lookup's, since a
    // redirect may wait for the one under way and the next, and `SELECT 1` has no work to take time.
    probe: () =>
      answerWithin(
        pool.query(withReadTimeout({ text: 'SELECT 1' }, { readTimeoutMs: POSTGRES_ANSWER_MS / 2 })),
        POSTGRES_ANSWER_MS / 2,
        'Postgres',
      ),
    isOutage: isDependencyOutage,
    onStoreBack: () => listener.listenNow(),
  });
  const cache = new LinkCache({
    lookup: timeLookups(metrics, lookups.lookup),
    maxEntries: resources.cacheSize,
    negativeTtlMs: 5000,
    // Not caught up in time is "cannot be known": the miss is then looked up afresh (and bounded).
    catchUp: () => answerWithin(listener.catchUp(), POSTGRES_ANSWER_MS, 'Postgres').catch(() => false),
    trusted: () => listener.trusted(),
    storeAway: lookups.storeAway,
  });
  const domains = new ServedDomainMap({
    trusted: () => listener.trusted(),
    lookup: (hostname) =>
      answerWithin(servedDomain(pool, hostname, { readTimeoutMs: POSTGRES_ANSWER_MS }), POSTGRES_ANSWER_MS, 'Postgres'),
  });
  const listener = listenForLinkChanges(resources.databaseUrl, cache, logger, {
    onTrustLost: countTrustLosses(metrics),
    domains,
  });
  const topic = names.topics.clicks;
  // One database on this thread, loaded when first needed: by the in-process click path, or by a country rule.
  let countries: CountryOf | undefined;
  const countryLookup = () => (countries ??= loadCountryLookup());
  const eventIds = clickEventIds();
  const eventIdPrefix = eventIds.prefix;
  const sink: ClickSink = resources.clickWorker
    ? workerClickSink({ ...resources.clickWorker, topic, visitorSecret, eventIdPrefix, logger })
    : inProcessClickSink({
        producer: kafka.producer(),
        admin: kafka.admin(),
        topic,
        visitorSecret,
        eventIdPrefix,
        countryOf: countryLookup(),
        logger,
      });
  // Redirects that are not clicks, and unknown slugs: counted on this thread, sent every few seconds on its own
  // producer (a handful of small events, not a click stream: no worker needed).
  const filtered = new FilteredTally();
  const filteredEvents = filteredSender({
    tally: filtered,
    producer: kafka.producer(),
    topic: names.topics.redirectsFiltered,
    logger,
  });
  registerRedirectorMetrics(metrics, { clicks: sink, cache, lookups, listener, filtered });
  return {
    cache,
    domains,
    onRedirect: createClickRecorder({ sink, nextSequence: eventIds.next, now: Date.now, filtered }),
    countryOf: rememberedCountries(countryLookup),
    onUnknownSlug: () => filtered.countUnknownSlug(Date.now()),
    clickQueue: {
      get depth() {
        return sink.depth;
      },
      get stats() {
        return sink.stats;
      },
      get workerRestarts() {
        return sink.workerRestarts;
      },
      // The filtered counts too: a test's flush sends all that the redirector holds.
      flush: () => Promise.all([sink.flush(), filteredEvents.flush()]).then(() => undefined),
    },
    // A warm cache answers its links while Postgres is away (see LinkCache's revalidate): ready all the same.
    dependencies: [{ name: 'postgres', check: postgresReachable(pool), required: () => cache.size === 0 }],
    async start() {
      await sink.start();
      await filteredEvents.start();
      await listener.start();
    },
    async stop(deadline = Date.now() + CLICKS_AT_CLOSE_MS + WORKER_DISCONNECT_MS) {
      await listener.stop();
      // The clicks still held get what is left of the close but a moment for the worker to disconnect
      // (about 0.5 s); if Kafka is away to the end, the process closes without waiting for it (stopModules).
      await sink.stop(Math.max(0, deadline - Date.now() - WORKER_DISCONNECT_MS));
      await filteredEvents.stop(Math.max(0, deadline - Date.now()));
    },
  };
}

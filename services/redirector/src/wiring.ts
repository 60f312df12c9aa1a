import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createIdempotentProducer, type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/kafka';
import { instanceSecret } from '@shortlink/postgres';
import type { RedirectorDeps } from './app';
import { createClickRecorder } from './clicks/click-recorder';
import { inProcessClickSink, type ClickSink } from './clicks/click-sink';
import { loadCountryLookup } from './clicks/country';
import { workerClickSink } from './clicks/worker-click-sink';
import { listenForNewLinks } from './invalidation';
import { LinkCache } from './link-cache';
import { postgresLookup } from './lookup';

export interface RedirectorResources {
  pool: Pool;
  databaseUrl: string;
  kafka: EventLogClient;
  names: KafkaNames;
  /** VISITOR_HASH_SECRET; when absent, the installation's own secret kept in Postgres. */
  visitorSecret: string | undefined;
  logger: KafkaLogger;
  cacheSize?: number;
  /**
   * With Kafka brokers: clicks are built and produced on a worker thread with
   * its own connection, off the redirect loop. Without (the embedded event
   * log lives in this thread): on this thread, through `kafka`.
   */
  clickWorker?: { brokers: string[]; clientId: string };
}

export async function wireRedirector(resources: RedirectorResources): Promise<RedirectorDeps> {
  const { pool, databaseUrl, kafka, names, logger } = resources;
  const cache = new LinkCache({
    lookup: postgresLookup(pool),
    maxEntries: resources.cacheSize ?? 1_000_000,
    negativeTtlMs: 5000,
    catchUp: () => listener.catchUp(),
  });
  const listener = listenForNewLinks(databaseUrl, cache, logger);
  const visitorSecret = resources.visitorSecret ?? (await instanceSecret(pool, 'visitor-hash'));
  const topic = names.topics.clicks;
  const sink: ClickSink = resources.clickWorker
    ? workerClickSink({ ...resources.clickWorker, topic, visitorSecret, logger })
    : inProcessClickSink({
        producer: createIdempotentProducer(kafka),
        topic,
        visitorSecret,
        countryOf: loadCountryLookup(),
        logger,
      });
  return {
    cache,
    onRedirect: createClickRecorder({ sink, newId: randomUUID, now: Date.now }),
    clickQueue: sink,
    async start() {
      await sink.start();
      await listener.start();
    },
    async stop() {
      await listener.stop();
      await sink.stop(5000);
    },
  };
}

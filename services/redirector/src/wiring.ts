import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createIdempotentProducer, type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/kafka';
import { instanceSecret } from '@shortlink/postgres';
import type { RedirectorDeps } from './app';
import { createClickRecorder } from './clicks/click-recorder';
import { loadCountryLookup } from './clicks/geo';
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
}

export async function wireRedirector(resources: RedirectorResources): Promise<RedirectorDeps> {
  const { pool, databaseUrl, kafka, names, logger } = resources;
  const cache = new LinkCache({
    lookup: postgresLookup(pool),
    maxEntries: resources.cacheSize ?? 1_000_000,
    negativeTtlMs: 5000,
  });
  const listener = listenForNewLinks(databaseUrl, cache, logger);
  const recorder = createClickRecorder({
    producer: createIdempotentProducer(kafka),
    topic: names.topics.clicks,
    visitorSecret: resources.visitorSecret ?? (await instanceSecret(pool, 'visitor-hash')),
    countryOf: loadCountryLookup(),
    newId: randomUUID,
    now: Date.now,
    logger,
  });
  return {
    cache,
    onRedirect: recorder.onRedirect,
    clickQueue: recorder.queue,
    async start() {
      await recorder.start();
      await listener.start();
    },
    async stop() {
      await listener.stop();
      await recorder.stop();
    },
  };
}

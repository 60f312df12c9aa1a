import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { postgresAuthenticator } from '@shortlink/accounts';
import { createIdempotentProducer, type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/kafka';
import type { WriteApiDeps } from './app';
import { postgresClaimStore } from './links/claims';
import { kafkaLinkAppender } from './links/link-created-appender';
import { createClaimSettler } from './links/settle-claims';
import { generateSlug } from './links/slug';

export interface WriteApiResources {
  pool: Pool;
  kafka: EventLogClient;
  names: KafkaNames;
  publicBaseUrl: string;
  logger: KafkaLogger;
  /** How often stale slug claims are settled. */
  settleIntervalMs?: number;
  /** See CreateLinkDeps.onLinkCommitted. */
  onLinkCommitted?: (slug: string) => void;
}

/** Real adapters for the write API: Postgres claims and keys, an idempotent producer on the event log. */
export function wireWriteApi(resources: WriteApiResources): WriteApiDeps {
  const { pool, kafka, names, publicBaseUrl, logger } = resources;
  const producer = createIdempotentProducer(kafka);
  const admin = kafka.admin();
  const settle = createClaimSettler({
    pool,
    admin,
    linksTopic: names.topics.links,
    linkProjectorGroup: names.groups.linkProjector,
    staleAfterMs: 60_000,
    catchUpTimeoutMs: 10_000,
    logger,
  });
  let timer: NodeJS.Timeout | undefined;
  let settling: Promise<unknown> = Promise.resolve();
  return {
    authenticate: postgresAuthenticator(pool),
    claims: postgresClaimStore(pool),
    appendLinkCreated: kafkaLinkAppender(producer, names.topics.links, 10_000),
    now: () => new Date(),
    newId: randomUUID,
    newSlug: () => generateSlug(),
    publicBaseUrl,
    onLinkCommitted: resources.onLinkCommitted,
    onClaimError: (err, slug) => logger.error({ err, slug }, 'slug claim could not be committed'),
    async start() {
      await producer.connect();
      await admin.connect();
      timer = setInterval(() => {
        settling = settle().catch((err: unknown) => logger.warn({ err }, 'settling slug claims failed'));
      }, resources.settleIntervalMs ?? 20_000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await settling;
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}

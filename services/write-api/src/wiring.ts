import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { postgresAuthenticator } from '@shortlink/accounts';
import { type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/kafka';
import type { WriteApiDeps } from './app';
import type { WriteApiConfig } from './config';

/** How often stale slug claims are settled. */
const SETTLE_INTERVAL_MS = 20_000;
import { postgresClaimStore } from './links/claims';
import { kafkaLinkAppender } from './links/link-created-appender';
import { createClaimSettler } from './links/settle-claims';
import { generateSlug } from './links/slug';

/** What the write API takes of its settings (see config.ts). */
export type WriteApiSettings = Pick<WriteApiConfig, 'PUBLIC_BASE_URL'>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface WriteApiStores {
  pool: Pool;
  kafka: EventLogClient;
  names: KafkaNames;
  logger: KafkaLogger;
  /** See CreateLinkDeps.onLinkCommitted: given when the redirector runs in the same process. */
  onLinkCommitted?: (slug: string) => void;
}

/**
 * The write API from its settings, on real adapters (Postgres claims and keys,
 * an idempotent producer on the event log): what its own entry point,
 * `npm start` and the tests all run.
 */
export function composeWriteApi(settings: WriteApiSettings, stores: WriteApiStores): WriteApiDeps {
  const { pool, kafka, names, logger } = stores;
  const publicBaseUrl = settings.PUBLIC_BASE_URL;
  const producer = kafka.producer();
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
    // A create is answered within 5 s (201, or 503 with Retry-After): the append gets 4 of them.
    appendLinkCreated: kafkaLinkAppender(producer, names.topics.links, 4000),
    now: () => new Date(),
    newId: randomUUID,
    newSlug: () => generateSlug(),
    publicBaseUrl,
    onLinkCommitted: stores.onLinkCommitted,
    onClaimError: (err, slug) => logger.error({ err, slug }, 'slug claim could not be committed'),
    async start() {
      await producer.connect();
      await admin.connect();
      timer = setInterval(() => {
        settling = settle().catch((err: unknown) => logger.warn({ err }, 'settling slug claims failed'));
      }, SETTLE_INTERVAL_MS);
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

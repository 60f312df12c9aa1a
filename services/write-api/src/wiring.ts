import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { postgresAuthenticator, type RateLimiter } from '@shortlink/accounts';
import { eventLogProbe, type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/event-log';
import { isDependencyOutage } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import { postgresReachable, verifiedHostnames } from '@shortlink/postgres';
import type { WriteApiDeps } from './app';
import type { WriteApiConfig } from './config';
import { dnsTxtLookup, postgresDomainStore } from '@shortlink/domains';
import { sealingKey } from '@shortlink/webhooks';
import type { DomainsApiDeps } from './domains/domains-api';
import { postgresWebhookStore } from './webhooks/stores/webhook-store';
import type { WebhooksApiDeps } from './webhooks/webhooks-api';

import { IDEMPOTENCY } from './idempotency/idempotency-limits';
import { postgresIdempotencyStore } from './idempotency/idempotency-store';
import { accountConnectionLimit } from './links/stores/account-connection-limit';
import { postgresClaimStore } from './links/stores/claims';
import { kafkaLinkAppender, oneEvent } from './links/stores/link-created-appender';
import { postgresLinkChangeStore } from './links/stores/link-change-store';
import { serializedLinkChanges } from './links/stores/serialized-link-changes';
import { createOutboxRelay } from './links/stores/outbox-relay';
import { redirectorAcks } from './links/stores/redirector-acks';
import { timeRedirectorWaits } from './links/stores/redirector-wait-metrics';
import { createClaimSettler } from './links/stores/settle-claims';
import { generateSlug } from './links/rules/slug';
import { claimsWithinDeadlines, idempotencyWithinDeadlines, POSTGRES_WRITE_DEADLINES } from './postgres-deadlines';

/** How often stale slug claims are settled and the link-change outbox relayed. */
const SETTLE_INTERVAL_MS = 20_000;
/** How often Idempotency-Key records past their retention are deleted. */
const PURGE_INTERVAL_MS = 10 * 60_000;

/** What the write API takes of its settings (see config.ts). */
export type WriteApiSettings = Pick<
  WriteApiConfig,
  | 'PUBLIC_BASE_URL'
  | 'DATABASE_URL'
  | 'DATABASE_POOL_SIZE'
  | 'WEBHOOKS_ALLOW_HTTP'
  | 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS'
  | 'WEBHOOKS_ENCRYPTION_KEY'
  | 'DNS_SERVERS'
  | 'DNS_TIMEOUT_MS'
>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface WriteApiStores {
  pool: Pool;
  kafka: EventLogClient;
  names: KafkaNames;
  logger: KafkaLogger;
  /** The process's one registry (shared with the other services of an all-in-one process). */
  metrics: MetricsRegistry;
  /** Each key's request count (openRateLimiter): one per process, shared with the read API when it runs here too. */
  rateLimiter: RateLimiter;
  /** See CreateLinkDeps.onLinkCommitted: given when the redirector runs in the same process. */
  onLinkCommitted?: (slug: string) => void;
  /** See ChangeLinkDeps.onLinkChanged: given when the redirector runs in the same process. */
  onLinkChanged?: (slug: string) => void;
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
  const idempotencyStore = postgresIdempotencyStore(pool, IDEMPOTENCY);
  // A create is answered within 5 s (201, or 503 with Retry-After): the append gets 4 of them.
  const appendLinkEvents = kafkaLinkAppender(producer, names.topics.links, 4000);
  const appendLinkEvent = oneEvent(appendLinkEvents);
  const { beforeDurableMs } = POSTGRES_WRITE_DEADLINES;
  const changes = serializedLinkChanges(
    postgresLinkChangeStore(pool, { statementTimeoutMs: beforeDurableMs }),
    accountConnectionLimit(settings.DATABASE_POOL_SIZE),
    {
      startWithinMs: beforeDurableMs,
      // A third of the connections: the rest stay free for creates and changes while the log is down.
      publishesAtOnce: Math.max(1, Math.floor(settings.DATABASE_POOL_SIZE / 3)),
      // The append may take 4 s: with this the change is answered within 5 s of its commit.
      publishStartWithinMs: 500,
    },
  );
  const relay = createOutboxRelay({
    pool,
    publish: (slug, append) => changes.publish(slug, append),
    append: appendLinkEvent,
    staleAfterMs: 30_000,
    logger,
  });
  const redirectors = redirectorAcks({
    connectionString: settings.DATABASE_URL,
    pool,
    logger,
    onSettled: timeRedirectorWaits(stores.metrics),
  });
  const eventLog = eventLogProbe(kafka, names.topics.links);
  let timer: NodeJS.Timeout | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  let settling: Promise<unknown> = Promise.resolve();
  return {
    authenticate: postgresAuthenticator(pool),
    rateLimiter: stores.rateLimiter,
    claims: claimsWithinDeadlines(postgresClaimStore(pool)),
    idempotency: {
      store: idempotencyWithinDeadlines(idempotencyStore),
      waitMs: IDEMPOTENCY.waitMs,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
    appendLinkCreated: appendLinkEvents,
    appendLinkEvent,
    changes,
    redirectors,
    webhooks: composeWebhooksApi(settings, pool),
    domains: composeDomainsApi(settings, pool, redirectors),
    now: () => new Date(),
    newId: randomUUID,
    newSlug: () => generateSlug(),
    publicBaseUrl,
    // Before anything is taken: a stalled Postgres answers as it does for the claim that would follow.
    verifiedDomains: (accountId, hostnames) =>
      verifiedHostnames(pool, accountId, hostnames, { readTimeoutMs: POSTGRES_WRITE_DEADLINES.beforeDurableMs }),
    onLinkCommitted: stores.onLinkCommitted,
    onLinkChanged: stores.onLinkChanged,
    onClaimError: (err, slug) =>
      isDependencyOutage(err)
        ? logger.warn({ err, slug }, 'slug claim commit not confirmed; the link projector commits it')
        : logger.error({ err, slug }, 'slug claim could not be committed'),
    dependencies: [
      { name: 'postgres', check: postgresReachable(pool) },
      { name: 'kafka', check: eventLog.check },
    ],
    async start() {
      await producer.connect();
      await admin.connect();
      await redirectors.start();
      timer = setInterval(() => {
        settling = Promise.all([
          settle().catch((err: unknown) => logger.warn({ err }, 'settling slug claims failed')),
          relay().catch((err: unknown) => logger.warn({ err }, 'relaying link changes failed')),
        ]);
      }, SETTLE_INTERVAL_MS);
      timer.unref();
      purgeTimer = setInterval(() => {
        idempotencyStore
          .purgeExpired()
          .catch((err: unknown) => logger.warn({ err }, 'purging expired idempotency keys failed'));
      }, PURGE_INTERVAL_MS);
      purgeTimer.unref();
    },
    async stop() {
      clearInterval(timer);
      clearInterval(purgeTimer);
      await settling;
      await redirectors.stop();
      await producer.disconnect();
      await admin.disconnect();
      await eventLog.close();
    },
  };
}

/**
 * The webhooks API on Postgres. The key that seals secrets is read once, when
 * first needed: the installation's own is kept in Postgres (decision 0059).
 */
export function composeWebhooksApi(
  settings: Pick<
    WriteApiSettings,
    'WEBHOOKS_ALLOW_HTTP' | 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS' | 'WEBHOOKS_ENCRYPTION_KEY'
  >,
  pool: Pool,
): WebhooksApiDeps {
  return {
    store: postgresWebhookStore(pool),
    sealingKey: sealingKey(pool, settings.WEBHOOKS_ENCRYPTION_KEY),
    allowHttp: settings.WEBHOOKS_ALLOW_HTTP,
    allowPrivateNetworks: settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS,
    now: () => new Date(),
    newId: randomUUID,
  };
}

/**
 * The domains API on Postgres, its TXT lookups on the resolvers of DNS_SERVERS, its changes awaited by the
 * redirectors as the links' are (docs/domains.md).
 */
export function composeDomainsApi(
  settings: Pick<WriteApiSettings, 'DNS_SERVERS' | 'DNS_TIMEOUT_MS'>,
  pool: Pool,
  redirectors: DomainsApiDeps['redirectors'],
): DomainsApiDeps {
  return {
    store: postgresDomainStore(pool),
    lookupTxt: dnsTxtLookup({ servers: settings.DNS_SERVERS, timeoutMs: settings.DNS_TIMEOUT_MS }),
    redirectors,
  };
}

import type { Pool } from 'pg';
import type { ServiceModule } from '@shortlink/http';
import type { EventLogClient, KafkaLogger, KafkaNames } from '@shortlink/event-log';
import type { MetricsRegistry } from '@shortlink/metrics';
import type { PublicNetworkPolicy } from '@shortlink/public-network';
import { openSealedSecret, sealingKey } from '@shortlink/webhooks';
import { createWebhookDispatcher } from './app';
import type { ClickBatcherOptions } from './click-batcher';
import type { WebhookDispatcherConfig } from './config';
import type { DeliveryPolicy } from './deliver';

/** What the dispatcher takes of its settings (see config.ts). */
export type WebhookDispatcherSettings = Pick<
  WebhookDispatcherConfig,
  | 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS'
  | 'WEBHOOKS_ALLOW_HTTP'
  | 'WEBHOOKS_ENCRYPTION_KEY'
  | 'WEBHOOKS_CONCURRENCY'
  | 'WEBHOOKS_PER_ENDPOINT_CONCURRENCY'
  | 'WEBHOOKS_RETRY_SCHEDULE'
  | 'PUBLIC_BASE_URL'
  | 'KAFKA_SESSION_TIMEOUT_MS'
>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface WebhookDispatcherStores {
  kafka: EventLogClient;
  names: KafkaNames;
  pool: Pool;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/**
 * Seams for tests only, never settings: quick timings, and addresses let
 * through the public-address rule (a "public" receiver on loopback).
 */
export interface WebhookDispatcherSeams {
  network?: Partial<PublicNetworkPolicy>;
  delivery?: Partial<DeliveryPolicy>;
  batching?: ClickBatcherOptions;
  lookupTtlMs?: number;
  pollMs?: number;
  replayPollMs?: number;
  random?: () => number;
}

/** The polite User-Agent: names the service and where it runs. */
export function webhookUserAgent(publicBaseUrl: string): string {
  return `ShortLinkWebhooks/1.0 (+${publicBaseUrl})`;
}

/** The dispatcher from its settings: what its own entry point, `npm start` and the tests all run. */
export function composeWebhookDispatcher(
  settings: WebhookDispatcherSettings,
  stores: WebhookDispatcherStores,
  seams: WebhookDispatcherSeams = {},
): ServiceModule {
  // Secrets are unsealed with the key the write API sealed them with: the operator's, or the installation's.
  const key = sealingKey(stores.pool, settings.WEBHOOKS_ENCRYPTION_KEY);
  return createWebhookDispatcher({
    ...stores,
    unseal: async (sealed) => openSealedSecret(await key(), sealed),
    newProducer: () => stores.kafka.producer(),
    network: { allowPrivateNetworks: settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS, ...seams.network },
    delivery: {
      allowHttp: settings.WEBHOOKS_ALLOW_HTTP,
      userAgent: webhookUserAgent(settings.PUBLIC_BASE_URL),
      ...seams.delivery,
    },
    concurrency: settings.WEBHOOKS_CONCURRENCY,
    perEndpoint: settings.WEBHOOKS_PER_ENDPOINT_CONCURRENCY,
    retryDelaysMs: settings.WEBHOOKS_RETRY_SCHEDULE,
    sessionTimeoutMs: settings.KAFKA_SESSION_TIMEOUT_MS,
    batching: seams.batching,
    lookupTtlMs: seams.lookupTtlMs,
    pollMs: seams.pollMs,
    replayPollMs: seams.replayPollMs,
    random: seams.random,
  });
}

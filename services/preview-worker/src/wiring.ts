import type { ServiceModule } from '@shortlink/http';
import { type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/event-log';
import type { MetricsRegistry } from '@shortlink/metrics';
import { createPreviewWorker, previewUserAgent } from './app';
import type { PreviewWorkerConfig } from './config';
import type { FetchPolicy } from './fetch/fetch-page';
import type { RetryPolicy } from './preview/fetch-preview';

/** What the preview worker takes of its settings (see config.ts). */
export type PreviewWorkerSettings = Pick<
  PreviewWorkerConfig,
  | 'PREVIEW_ALLOW_PRIVATE_NETWORKS'
  | 'PREVIEW_CONCURRENCY'
  | 'PREVIEW_PER_HOST_CONCURRENCY'
  | 'PREVIEW_CACHE_SECONDS'
  | 'PREVIEW_MAX_PENDING'
  | 'PUBLIC_BASE_URL'
  | 'KAFKA_SESSION_TIMEOUT_MS'
>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface PreviewWorkerStores {
  kafka: EventLogClient;
  names: KafkaNames;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/**
 * Seams for tests only, never settings: a quick retry policy, and addresses
 * let through the public-address rule (to stand a "public" page on loopback).
 */
export interface PreviewWorkerSeams {
  retry?: RetryPolicy;
  fetchPolicy?: Partial<FetchPolicy>;
}

/** The worker from its settings: what its own entry point, `npm start` and the tests all run. */
export function composePreviewWorker(
  settings: PreviewWorkerSettings,
  stores: PreviewWorkerStores,
  seams: PreviewWorkerSeams = {},
): ServiceModule {
  const { kafka } = stores;
  return createPreviewWorker({
    kafka,
    names: stores.names,
    newProducer: () => kafka.producer(),
    fetchPolicy: {
      allowPrivateNetworks: settings.PREVIEW_ALLOW_PRIVATE_NETWORKS,
      userAgent: previewUserAgent(settings.PUBLIC_BASE_URL),
      ...seams.fetchPolicy,
    },
    retry: seams.retry,
    concurrency: settings.PREVIEW_CONCURRENCY,
    perHostConcurrency: settings.PREVIEW_PER_HOST_CONCURRENCY,
    cacheMs: settings.PREVIEW_CACHE_SECONDS * 1000,
    maxPending: settings.PREVIEW_MAX_PENDING,
    sessionTimeoutMs: settings.KAFKA_SESSION_TIMEOUT_MS,
    logger: stores.logger,
    metrics: stores.metrics,
  });
}

/**
 * The whole system's composition: every service wired from one set of
 * settings onto the stores a process opened. `npm start` (this package's
 * main.ts) and the integration tests call it; each service's own entry point
 * calls the same per-service compose function it is built from. There is no
 * other wiring. This is a composition root, not a service, so it may import
 * services; the services never import each other.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { RateLimiter } from '@shortlink/accounts';
import { systemRateLimitEnv } from '@shortlink/config';
import { createApiDocs } from '@shortlink/api-docs';
import type { ServiceModule } from '@shortlink/http';
import type { EventLogClient, KafkaLogger, KafkaNames } from '@shortlink/kafka';
import type { MetricsRegistry } from '@shortlink/metrics';
import { analyticsConfig, composeAnalytics, createAnalytics } from '@shortlink/service-analytics';
import { composePreviewWorker, previewWorkerConfig, type PreviewWorkerSeams } from '@shortlink/service-preview-worker';
import { composeProjector, projectorConfig } from '@shortlink/service-projector';
import { composeRedirector, createRedirector, redirectorConfig } from '@shortlink/service-redirector';
import { composeWriteApi, createWriteApi, writeApiConfig } from '@shortlink/service-write-api';
import type { z } from 'zod';
import { API_ROUTES, API_VERSION } from './api-routes';

/** Every setting of every service: what `npm start` reads. */
export const systemConfig = redirectorConfig
  .extend(writeApiConfig.shape)
  .extend(projectorConfig.shape)
  .extend(analyticsConfig.shape)
  .extend(previewWorkerConfig.shape)
  // One process serves the write and read APIs: it counts rate limits in memory unless REDIS_URL is set.
  .extend(systemRateLimitEnv.shape);
export type SystemSettings = z.infer<typeof systemConfig>;

/** What the process opened for its services to share. */
export interface SystemStores {
  pool: Pool;
  kafka: EventLogClient;
  names: KafkaNames;
  clickhouse: ClickHouseClient;
  logger: KafkaLogger;
  /** Shared by the write and read APIs, so a key's requests to either count against one limit. */
  rateLimiter: RateLimiter;
  /** The process's one registry: every service registers on it, and `/metrics` serves it once. */
  metrics: MetricsRegistry;
}

export interface SystemOptions {
  /** Runs the preview worker (on by default). */
  previews?: boolean;
  /** Test seams of the preview worker; see PreviewWorkerSeams. */
  previewSeams?: PreviewWorkerSeams;
}

export interface ComposedSystem {
  /** In start order; the redirector last, since its `/:slug` route is the catch-all. */
  modules: ServiceModule[];
  /** Sends the redirector's queued clicks to the event log now. */
  flushClicks(): Promise<void>;
}

export async function composeSystem(
  settings: SystemSettings,
  stores: SystemStores,
  options: SystemOptions = {},
): Promise<ComposedSystem> {
  const redirector = await composeRedirector(settings, stores);
  const writeApi = composeWriteApi(settings, {
    ...stores,
    // Same process: the redirector forgets a cached "not found" before the 201 leaves.
    onLinkCommitted: (slug) => redirector.cache.forget(slug),
    // And drops a changed or deleted link at once (the others are told through Postgres).
    onLinkChanged: (slug) => redirector.cache.invalidate(slug),
  });
  return {
    modules: [
      composeProjector(settings, stores),
      ...(options.previews === false ? [] : [composePreviewWorker(settings, stores, options.previewSeams)]),
      createWriteApi(writeApi),
      createAnalytics(composeAnalytics(settings, stores)),
      createApiDocs({ routes: API_ROUTES, publicBaseUrl: settings.PUBLIC_BASE_URL, version: API_VERSION }),
      createRedirector(redirector),
    ],
    flushClicks: () => redirector.clickQueue?.flush() ?? Promise.resolve(),
  };
}

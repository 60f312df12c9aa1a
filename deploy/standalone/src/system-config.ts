/**
 * What the whole system is configured from and composed on: every service's
 * settings, and the stores a process opens for them to share.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { RateLimiter } from '@shortlink/accounts';
import { systemRateLimitEnv } from '@shortlink/config';
import type { EventLogClient, KafkaLogger, KafkaNames } from '@shortlink/event-log';
import type { MetricsRegistry } from '@shortlink/metrics';
import { analyticsConfig } from '@shortlink/service-analytics';
import { previewWorkerConfig } from '@shortlink/service-preview-worker';
import { projectorConfig } from '@shortlink/service-projector';
import { redirectorConfig } from '@shortlink/service-redirector';
import { webhookDispatcherConfig } from '@shortlink/service-webhook-dispatcher';
import { writeApiConfig } from '@shortlink/service-write-api';
import type { z } from 'zod';

/** Every setting of every service: what `npm start` reads. */
export const systemConfig = redirectorConfig
  .extend(writeApiConfig.shape)
  .extend(projectorConfig.shape)
  .extend(analyticsConfig.shape)
  .extend(previewWorkerConfig.shape)
  .extend(webhookDispatcherConfig.shape)
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

import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { ServiceModule } from '@shortlink/http';
import { type EventLogClient, type KafkaLogger, type KafkaNames } from '@shortlink/event-log';
import type { MetricsRegistry } from '@shortlink/metrics';
import { createProjector } from './app';
import type { ProjectorConfig } from './config';

/** What the projector takes of its settings (see config.ts). */
export type ProjectorSettings = Pick<
  ProjectorConfig,
  'CLICK_BATCH_SIZE' | 'KAFKA_SESSION_TIMEOUT_MS' | 'PROJECTIONS' | 'CLICKHOUSE_CLUSTER'
>;

/** The stores the process opened, shared with the other services of an all-in-one process. */
export interface ProjectorStores {
  kafka: EventLogClient;
  names: KafkaNames;
  pool: Pool;
  clickhouse: ClickHouseClient;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/** The projector from its settings: what its own entry point, `npm start` and the tests all run. */
export function composeProjector(settings: ProjectorSettings, stores: ProjectorStores): ServiceModule {
  return createProjector({
    ...stores,
    newProducer: () => stores.kafka.producer(),
    projections: settings.PROJECTIONS,
    maxClicksPerPartitionBatch: settings.CLICK_BATCH_SIZE,
    sessionTimeoutMs: settings.KAFKA_SESSION_TIMEOUT_MS,
    clickhouseCluster: settings.CLICKHOUSE_CLUSTER,
  });
}

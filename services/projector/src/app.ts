import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { CLICKHOUSE_MIGRATIONS_DIR, migrateClickHouse } from '@shortlink/clickhouse';
import { clickhouseReachable } from '@shortlink/clickhouse';
import type { Dependency, ServiceModule } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import { postgresReachable } from '@shortlink/postgres';
import {
  eventLogProbe,
  runConsumer,
  type EventLogClient,
  type KafkaLogger,
  type KafkaNames,
  type LogProducer,
  type RunningConsumer,
} from '@shortlink/event-log';
import { runClickProjector } from './clicks/click-projector';
import { postgresBatchLedger } from './clicks/batch-ledger';
import { linkEventHandler } from './links/link-handler';
import { filteredEventHandler } from './filtered/filtered-handler';
import { runLinkTagsProjector } from './link-tags/link-tags-projector';
import { projectorMetrics } from './projector-metrics';

export const SERVICE_NAME = 'projector';

export interface ProjectorDeps {
  kafka: EventLogClient;
  names: KafkaNames;
  pool: Pool;
  clickhouse: ClickHouseClient;
  /** One producer per consumer that parks dead letters. */
  newProducer: () => LogProducer;
  /** Which projections to run (PROJECTIONS); both when not given. */
  projections?: readonly ('links' | 'clicks')[];
  /** Most clicks in one partition's batch (CLICK_BATCH_SIZE); one insert carries the batches in hand, up to 4x it. */
  maxClicksPerPartitionBatch?: number;
  /** KAFKA_SESSION_TIMEOUT_MS */
  sessionTimeoutMs?: number;
  /** CLICKHOUSE_CLUSTER: the schema is migrated onto that cluster. */
  clickhouseCluster?: string;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/**
 * Consumes link events into the Postgres `links` table, and clicks into the
 * ClickHouse `clicks` table (whose materialized views fill the aggregates).
 * The click projection owns the ClickHouse schema and migrates it on start.
 * A process runs both projections, or one (PROJECTIONS).
 */
export function createProjector(deps: ProjectorDeps): ServiceModule {
  let links: RunningConsumer | undefined;
  let linksDeadLetters: LogProducer | undefined;
  let clicks: Awaited<ReturnType<typeof runClickProjector>> | undefined;
  let filtered: RunningConsumer | undefined;
  let filteredDeadLetters: LogProducer | undefined;
  let linkTags: Awaited<ReturnType<typeof runLinkTagsProjector>> | undefined;
  const projections = new Set(deps.projections ?? ['links', 'clicks']);
  const eventLog = eventLogProbe(
    deps.kafka,
    projections.has('links') ? deps.names.topics.links : deps.names.topics.clicks,
  );
  // Both projections keep their state in Postgres (the links table, the click batch ledger).
  const dependencies: Dependency[] = [
    { name: 'kafka', check: eventLog.check },
    { name: 'postgres', check: postgresReachable(deps.pool) },
    ...(projections.has('clicks') ? [{ name: 'clickhouse', check: clickhouseReachable(deps.clickhouse) }] : []),
  ];
  return {
    name: SERVICE_NAME,
    dependencies,
    async start() {
      if (projections.has('links')) await startLinks();
      if (projections.has('clicks')) await startClicks();
    },
    async stop() {
      // Each consumer's disconnect waits for its fetch in flight: the two wait side by side.
      await Promise.all([clicks?.stop(), links?.stop(), filtered?.stop(), linkTags?.stop()]);
      await linksDeadLetters?.disconnect();
      await filteredDeadLetters?.disconnect();
      await eventLog.close();
    },
  };

  async function startLinks() {
    linksDeadLetters = deps.newProducer();
    await linksDeadLetters.connect();
    links = await runConsumer({
      kafka: deps.kafka,
      groupId: deps.names.groups.linkProjector,
      topics: [deps.names.topics.links],
      handler: linkEventHandler(deps.pool, projectorMetrics(deps.metrics)),
      logger: deps.logger,
      deadLetterProducer: linksDeadLetters,
      deadLetterTopic: deps.names.topics.deadLetter,
      metrics: deps.metrics,
      sessionTimeoutMs: deps.sessionTimeoutMs,
    });
  }

  async function startClicks() {
    await migrateClickHouse(deps.clickhouse, CLICKHOUSE_MIGRATIONS_DIR, { cluster: deps.clickhouseCluster });
    clicks = await runClickProjector({
      kafka: deps.kafka,
      clickhouse: deps.clickhouse,
      topic: deps.names.topics.clicks,
      groupId: deps.names.groups.clickProjector,
      deadLetterTopic: deps.names.topics.deadLetter,
      deadLetterProducer: deps.newProducer(),
      ledger: postgresBatchLedger(deps.pool, deps.names.groups.clickProjector, deps.names.topics.clicks),
      logger: deps.logger,
      metrics: deps.metrics,
      maxBatch: deps.maxClicksPerPartitionBatch,
      sessionTimeoutMs: deps.sessionTimeoutMs,
    });
    // The redirects that were not clicks go to ClickHouse too: the click projection owns its schema.
    filteredDeadLetters = deps.newProducer();
    await filteredDeadLetters.connect();
    filtered = await runConsumer({
      kafka: deps.kafka,
      groupId: deps.names.groups.filteredProjector,
      topics: [deps.names.topics.redirectsFiltered],
      handler: filteredEventHandler(deps.clickhouse, projectorMetrics(deps.metrics)),
      logger: deps.logger,
      deadLetterProducer: filteredDeadLetters,
      deadLetterTopic: deps.names.topics.deadLetter,
      metrics: deps.metrics,
      sessionTimeoutMs: deps.sessionTimeoutMs,
    });
    // Each link's tag into ClickHouse, for the reads by tag there (migration 0007): with the schema's owner.
    linkTags = await runLinkTagsProjector({
      kafka: deps.kafka,
      clickhouse: deps.clickhouse,
      topic: deps.names.topics.links,
      groupId: deps.names.groups.linkTagsProjector,
      logger: deps.logger,
      metrics: deps.metrics,
      sessionTimeoutMs: deps.sessionTimeoutMs,
    });
  }
}

import type { Kafka, Producer } from 'kafkajs';
import type { Pool } from 'pg';
import type { ServiceModule } from '@shortlink/http';
import { runConsumer, type KafkaLogger, type KafkaNames, type RunningConsumer } from '@shortlink/kafka';
import { linkEventHandler } from './links/link-handler';

export const SERVICE_NAME = 'projector';

export interface ProjectorDeps {
  kafka: Kafka;
  names: KafkaNames;
  pool: Pool;
  deadLetterProducer: Producer;
  logger: KafkaLogger;
}

/** Consumes link events into the Postgres `links` table (and, later, clicks into ClickHouse). */
export function createProjector(deps: ProjectorDeps): ServiceModule {
  let links: RunningConsumer | undefined;
  return {
    name: SERVICE_NAME,
    async start() {
      await deps.deadLetterProducer.connect();
      links = await runConsumer({
        kafka: deps.kafka,
        groupId: deps.names.groups.linkProjector,
        topics: [deps.names.topics.links],
        handler: linkEventHandler(deps.pool),
        logger: deps.logger,
        deadLetterProducer: deps.deadLetterProducer,
        deadLetterTopic: deps.names.topics.deadLetter,
      });
    },
    async stop() {
      await links?.stop();
      await deps.deadLetterProducer.disconnect();
    },
  };
}

export { projectLinkCreated } from './links/project-link';
export { linkEventHandler } from './links/link-handler';
export { rebuildLinks, type RebuildResult } from './links/rebuild';

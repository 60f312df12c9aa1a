import { DEFAULT_PARTITIONS, ensureTopics } from './admin';
import { createKafka, type KafkaLogger } from './client';
import { kafkaLogClient } from './kafkajs-log-client';
import type { EventLogClient } from '../log-client';
import { topicSpecs, type KafkaNames } from '../topics';

/** The event log on a Kafka cluster that has the project's topics. */
export async function openKafka(options: {
  brokers: string[];
  clientId: string;
  logger: KafkaLogger;
  names: KafkaNames;
}): Promise<EventLogClient> {
  const log = kafkaLogClient(createKafka(options));
  await ensureTopics(log, topicSpecs(options.names, DEFAULT_PARTITIONS));
  return log;
}

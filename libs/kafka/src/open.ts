import type { Kafka } from 'kafkajs';
import { DEFAULT_PARTITIONS, ensureTopics } from './admin';
import { createKafka, type KafkaLogger } from './client';
import { topicSpecs, type KafkaNames } from './topics';

/** A Kafka client on a cluster that has the project's topics. */
export async function openKafka(options: {
  brokers: string[];
  clientId: string;
  logger: KafkaLogger;
  names: KafkaNames;
}): Promise<Kafka> {
  const kafka = createKafka(options);
  await ensureTopics(kafka, topicSpecs(options.names, DEFAULT_PARTITIONS));
  return kafka;
}

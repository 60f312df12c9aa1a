import type { Admin, Consumer, ConsumerConfig, Producer, ProducerConfig } from 'kafkajs';

/**
 * The part of Kafka's client the services use. A kafkajs `Kafka` is one; the
 * embedded log (`@shortlink/embedded`) is the other, for one-process installs
 * with no broker. Services depend on this, never on where the events live.
 */
export type LogProducer = Pick<Producer, 'connect' | 'disconnect' | 'send'>;
export type LogConsumer = Pick<Consumer, 'connect' | 'disconnect' | 'subscribe' | 'run' | 'commitOffsets'>;
export type LogAdmin = Pick<
  Admin,
  | 'connect'
  | 'disconnect'
  | 'listTopics'
  | 'createTopics'
  | 'fetchTopicOffsets'
  | 'fetchOffsets'
  | 'deleteGroups'
  | 'describeGroups'
  | 'describeCluster'
>;

export interface EventLogClient {
  producer(config?: ProducerConfig): LogProducer;
  consumer(config: ConsumerConfig): LogConsumer;
  admin(): LogAdmin;
}

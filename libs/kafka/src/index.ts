export { TOPICS, CONSUMER_GROUPS, topicSpecs, type TopicName, type TopicSpec } from './topics';
export { createKafka, createIdempotentProducer, type KafkaConnection, type KafkaLogger } from './client';
export { ensureTopics, waitForKafka } from './admin';

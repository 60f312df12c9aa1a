export { TOPICS, CONSUMER_GROUPS, kafkaNames, topicSpecs, type KafkaNames, type TopicSpec } from './topics';
export { createKafka, type KafkaConnection, type KafkaLogger } from './client';
export { kafkaLogClient } from './kafkajs-log-client';
export { partitionOfKey } from './partitioner';
export { ensureTopics, waitForKafka, waitForGroupToCatchUp, DEFAULT_PARTITIONS } from './admin';
export { openKafka } from './open';
export {
  runConsumer,
  OK,
  type HandlerResult,
  type MessageHandler,
  type MessageContext,
  type RunningConsumer,
  type ConsumerMetrics,
} from './consumer';
export { parkDeadLetter, type DeadLetterSource } from './dead-letter';
export { consumerMetrics, deadLetterReasonLabel, setLag, type ConsumerMetricSet } from './consumer-metrics';
export { isTransientFailure } from './transient-failure';
export { eventLogProbe, type EventLogProbe } from './event-log-probe';
export type {
  BatchControl,
  BatchHandler,
  EventLogClient,
  LogAdmin,
  LogProducer,
  LogRecord,
  OutgoingRecord,
  PartitionOffsets,
  RecordBatch,
  RecordHeaders,
  RunningLogConsumer,
  Subscription,
} from './log-client';
export { appendEvents, EVENT_HEADERS, type AppendOptions } from './append-events';

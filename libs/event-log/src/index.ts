export { TOPICS, CONSUMER_GROUPS, kafkaNames, topicSpecs, type KafkaNames, type TopicSpec } from './topics';
export { createKafka, type KafkaConnection, type KafkaLogger } from './kafka/client';
export { kafkaLogClient } from './kafka/kafkajs-log-client';
export { partitionOfKey } from './kafka/partitioner';
export { ensureTopics, waitForKafka, waitForGroupToCatchUp, DEFAULT_PARTITIONS } from './kafka/admin';
export { openKafka } from './kafka/open';
export {
  runConsumer,
  OK,
  HANDLED_LATER,
  type HandlerResult,
  type DeferredRecordHandler,
  type MessageHandler,
  type MessageContext,
  type RunningConsumer,
  type ConsumerMetrics,
} from './consumer';
export type { RecordInHand } from './records-in-hand';
export { parkDeadLetter, type DeadLetterSource } from './dead-letter';
export { consumerMetrics, deadLetterReasonLabel, setLag, type ConsumerMetricSet } from './consumer-metrics';
export { isTransientFailure } from './transient-failure';
export { eventLogProbe, type EventLogProbe } from './event-log-probe';
export type {
  AppendRecordsOptions,
  BatchControl,
  BatchHandler,
  EventLogClient,
  HeaderValue,
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
export { DEFAULT_FETCH_MAX_WAIT_MS } from './log-client';
export { appendEvents, EVENT_HEADERS, type AppendOptions } from './append-events';
export { serveLogClient } from './thread-log/thread-log-host';
export { threadLogClient } from './thread-log/thread-log-client';
export { EventLog, UnknownTopicError } from './embedded/event-log';
export { embeddedLogClient } from './embedded/embedded-client';

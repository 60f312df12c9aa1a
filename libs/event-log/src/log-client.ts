import type { TopicSpec } from './topics';

/**
 * The event log as the services need it, and nothing more: append records to
 * a topic, consume a topic's partitions in batches and commit positions, and
 * the few admin questions operators and settlers ask. Two adapters implement
 * it: Kafka through kafkajs (`kafkajs-log-client.ts`) and the embedded log
 * (`@shortlink/embedded`) for one-process installs. Services depend on this,
 * never on where the events live.
 */
export interface EventLogClient {
  /**
   * A producer whose appends are durable: resolved only when every in-sync
   * replica has every record (`acks=all`). At least once: a record whose
   * acknowledgement was lost is sent again and may be in the log twice, so
   * consumers drop repeats by the event id.
   * Records with a key go to the partition Kafka's Java client would choose
   * (murmur2), so a key's records stay in order whoever produces them.
   */
  producer(): LogProducer;
  /**
   * Joins `groupId` and hands each fetched batch of an assigned partition to
   * `eachBatch`, one batch per partition at a time. Nothing is committed
   * unless the handler commits; a batch whose handler throws, or that is left
   * uncommitted, is fetched again from the last commit of this consumer.
   */
  consume(subscription: Subscription, eachBatch: BatchHandler): Promise<RunningLogConsumer>;
  admin(): LogAdmin;
}

/** A header as it arrives: Kafka allows repeats, which come as an array. */
export type HeaderValue = Buffer | string | (Buffer | string)[] | undefined;
export type RecordHeaders = Record<string, HeaderValue>;

/** A record to append. */
export interface OutgoingRecord {
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers?: RecordHeaders;
}

/** A record as read from a partition. */
export interface LogRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  /** Milliseconds since the epoch, as a string (Kafka's CreateTime). */
  timestamp: string;
  headers?: RecordHeaders;
}

export interface AppendRecordsOptions {
  timeoutMs?: number;
  /**
   * Kafka compresses each partition's batch of the request with LZ4 (its own
   * codec: every Kafka client and kcat read it; the records are unchanged).
   * Worth it for many records at once; the embedded log stores records as they are.
   */
  compression?: 'lz4';
}

export interface LogProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Appends records to one topic in one request; resolves once they are durable. */
  append(topic: string, records: readonly OutgoingRecord[], options?: AppendRecordsOptions): Promise<void>;
}

/**
 * How long a fetch waits at most when there is nothing to read, unless a
 * subscription sets its own: the Java client's 500 ms, not kafkajs's 5 s. A
 * consumer's stop waits for the fetch under way, so an idle consumer took
 * that long to stop (the preview worker 4.95 s); a record is answered at once
 * either way, and an idle consumer pays two empty fetches a second.
 */
export const DEFAULT_FETCH_MAX_WAIT_MS = 500;

export interface Subscription {
  groupId: string;
  topics: string[];
  /** Where a group with no committed position starts: the first record (true) or the next one appended. */
  fromBeginning: boolean;
  /** How long a silent member keeps its partitions (default 30 s). */
  sessionTimeoutMs?: number;
  /** Partitions handled at once (default 1); order within a partition is kept whatever the value. */
  partitionsConcurrently?: number;
  /** Most bytes one fetch returns per partition (default 1 MiB). */
  maxBytesPerPartition?: number;
  /**
   * How long a fetch may wait for more records when fewer than `fetchMinBytes`
   * are there: larger batches for consumers whose cost is per batch, at the
   * price of this much latency. Default: answered as soon as anything is there,
   * and after DEFAULT_FETCH_MAX_WAIT_MS when nothing is.
   */
  fetchMaxWaitMs?: number;
  fetchMinBytes?: number;
}

/** Consecutive records of one partition. */
export interface RecordBatch {
  topic: string;
  partition: number;
  records: readonly LogRecord[];
  /** The offset the partition's next record will get, as of this fetch: what consumer lag is measured against. */
  highWatermark?: string;
}

export interface BatchControl {
  /** Commits the group's position in this batch's partition: the offset of the next record to read. */
  commit: (nextOffset: string) => Promise<void>;
  /**
   * Moves this member's read position in the partition to `nextOffset`
   * without committing: the next batch starts there, while the records before
   * it are still being handled. A later commit of an offset behind it does not
   * move it back. What is taken but never committed is delivered again to the
   * partition's next owner (after a restart or a rebalance), as any
   * uncommitted record is.
   */
  advance: (nextOffset: string) => void;
  /** Tells the group this member is alive during long work (cheap; call it between slow steps). */
  heartbeat: () => Promise<void>;
  /** False once the consumer is stopping or the partition moved to another member: abandon the batch. */
  owned: () => boolean;
}

export type BatchHandler = (batch: RecordBatch, control: BatchControl) => Promise<void>;

export interface RunningLogConsumer {
  /** Leaves the group once the batches in hand end; uncommitted work is fetched again by the next owner. */
  stop(): Promise<void>;
}

export interface PartitionOffsets {
  partition: number;
  /** The first offset still held. */
  low: string;
  /** The offset the next record will get. */
  high: string;
}

export interface LogAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /**
   * Creates the topics that do not exist yet (existing ones are left as they
   * are); returns those created. Without a replication factor, the cluster's
   * `default.replication.factor` applies.
   */
  createMissingTopics(specs: readonly TopicSpec[], replicationFactor?: number): Promise<string[]>;
  partitionOffsets(topic: string): Promise<PartitionOffsets[]>;
  /** The group's committed position per partition of `topic`; -1 where it has committed nothing. */
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: string }[]>;
  /** Whether any member of the group is consuming now. */
  groupIsActive(groupId: string): Promise<boolean>;
  deleteGroup(groupId: string): Promise<void>;
}

import {
  Partitioners,
  type ConsumerConfig,
  type ConsumerRunConfig,
  type ConsumerSubscribeTopic,
  type ConsumerSubscribeTopics,
  type IHeaders,
  type KafkaMessage,
  type Message,
  type PartitionMetadata,
  type ProducerConfig,
  type ProducerRecord,
  type RecordMetadata,
  type TopicPartitionOffsetAndMetadata,
} from 'kafkajs';
import type { EventLogClient, KafkaLogger, LogAdmin, LogConsumer, LogProducer } from '@shortlink/kafka';
import type { EventLog } from './event-log';
import type { NewRecord, StoredRecord } from './partition-log';

const toBuffer = (v: Buffer | string | null | undefined): Buffer | null =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');

function toHeaders(headers: IHeaders | undefined): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    // Kafka allows repeated headers; none of ours repeat, so the last one is kept.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = toBuffer(last)!;
  }
  return out;
}

function toKafkaMessage(record: StoredRecord): KafkaMessage {
  return {
    key: record.key,
    value: record.value,
    timestamp: String(record.timestamp),
    attributes: 0,
    offset: record.offset.toString(),
    headers: record.headers,
  };
}

/**
 * The embedded log behind the interface the services use for Kafka. Same
 * partitioner as the Java client and kafkajs (murmur2 of the key), offsets
 * committed per consumer group, `fromBeginning` replay, at-least-once delivery:
 * so the projector's exactly-once scheme, the preview worker and `rebuild`
 * behave as they do on a broker.
 */
export function embeddedLogClient(log: EventLog, logger?: KafkaLogger): EventLogClient {
  const groups = new GroupCoordinator();
  return {
    producer: (config?: ProducerConfig) => new EmbeddedProducer(log, config),
    consumer: (config: ConsumerConfig) => new EmbeddedConsumer(log, groups, config, logger),
    admin: () => embeddedAdmin(log, groups),
  };
}

class EmbeddedProducer implements LogProducer {
  private readonly partitioner;

  constructor(
    private readonly log: EventLog,
    config?: ProducerConfig,
  ) {
    this.partitioner = (config?.createPartitioner ?? Partitioners.DefaultPartitioner)();
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const partitionCount = this.log.partitions(record.topic).length;
    const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitionCount }, (_, p) => ({
      partitionErrorCode: 0,
      partitionId: p,
      leader: 0,
      replicas: [0],
      isr: [0],
    }));
    const byPartition = new Map<number, NewRecord[]>();
    for (const message of record.messages) {
      const partition = message.partition ?? this.partitioner({ topic: record.topic, partitionMetadata, message });
      if (partition < 0 || partition >= partitionCount) throw new Error(`no partition ${partition} in ${record.topic}`);
      const list = byPartition.get(partition) ?? [];
      list.push(toRecord(message));
      byPartition.set(partition, list);
    }
    const appended = await Promise.all(
      [...byPartition].map(async ([partition, records]) => ({
        partition,
        base: await this.log.append(record.topic, partition, records),
      })),
    );
    return appended.map(({ partition, base }) => ({
      topicName: record.topic,
      partition,
      errorCode: 0,
      baseOffset: base.toString(),
      logAppendTime: '-1',
      logStartOffset: '0',
    }));
  }
}

function toRecord(message: Message): NewRecord {
  return { key: toBuffer(message.key), value: toBuffer(message.value), headers: toHeaders(message.headers) };
}

/**
 * One member of a group consumes all of the group's partitions; further
 * members of the same group wait until it leaves, then take over from the
 * committed offsets (what a Kafka rebalance does, with one process).
 */
class GroupCoordinator {
  private readonly holders = new Map<string, { release: Promise<void> }>();

  async join(groupId: string, stopped: () => boolean): Promise<(() => void) | null> {
    for (;;) {
      const holder = this.holders.get(groupId);
      if (!holder) break;
      await holder.release;
      if (stopped()) return null;
    }
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holders.set(groupId, { release: released });
    return () => {
      this.holders.delete(groupId);
      release();
    };
  }

  active(groupId: string): boolean {
    return this.holders.has(groupId);
  }
}

const DEFAULT_MAX_BYTES_PER_PARTITION = 1024 * 1024;
const RETRY_AFTER_ERROR_MS = 1000;
const IDLE_WAIT_MS = 1000;

class EmbeddedConsumer implements LogConsumer {
  private topics: string[] = [];
  private fromBeginning = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: () => void = () => undefined;
  private readonly onAppend = () => this.wake();

  constructor(
    private readonly log: EventLog,
    private readonly groups: GroupCoordinator,
    private readonly config: ConsumerConfig,
    private readonly logger?: KafkaLogger,
  ) {}

  async connect(): Promise<void> {}

  async subscribe(subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void> {
    const topics = 'topics' in subscription ? subscription.topics : [subscription.topic];
    for (const topic of topics) {
      if (typeof topic !== 'string') throw new Error('the embedded log subscribes to topics by name only');
      this.log.partitions(topic); // unknown topics fail here, as they would on a broker
      this.topics.push(topic);
    }
    this.fromBeginning = subscription.fromBeginning ?? false;
  }

  async run(config: ConsumerRunConfig = {}): Promise<void> {
    if (this.loop) throw new Error('consumer is already running');
    this.log.events.on('append', this.onAppend);
    this.loop = this.consume(config).finally(() => this.log.events.off('append', this.onAppend));
  }

  async commitOffsets(offsets: TopicPartitionOffsetAndMetadata[]): Promise<void> {
    await this.log.commit(this.config.groupId, offsets);
  }

  async disconnect(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  private async consume(config: ConsumerRunConfig): Promise<void> {
    const leave = await this.groups.join(this.config.groupId, () => this.stopping);
    if (!leave) return;
    try {
      const committed = await this.log.committed(this.config.groupId);
      const positions = new Map<string, bigint>();
      const key = (topic: string, partition: number) => `${topic}/${partition}`;
      for (const topic of this.topics) {
        this.log.endOffsets(topic).forEach((end, partition) => {
          const at = committed[topic]?.[String(partition)];
          positions.set(key(topic, partition), at !== undefined ? BigInt(at) : this.fromBeginning ? 0n : end);
        });
      }
      const concurrency = Math.max(1, config.partitionsConsumedConcurrently ?? 1);
      const maxBytes = this.config.maxBytesPerPartition ?? DEFAULT_MAX_BYTES_PER_PARTITION;

      while (!this.stopping) {
        // Armed before looking, so an append that lands meanwhile is not missed.
        const appended = new Promise<void>((resolve) => (this.wake = resolve));
        const ready = this.topics.flatMap((topic) =>
          this.log
            .endOffsets(topic)
            .map((end, partition) => ({ topic, partition, end }))
            .filter(({ topic: t, partition, end }) => positions.get(key(t, partition))! < end),
        );
        if (ready.length === 0) {
          await Promise.race([appended, delay(IDLE_WAIT_MS)]);
          continue;
        }
        for (let i = 0; i < ready.length && !this.stopping; i += concurrency) {
          await Promise.all(
            ready.slice(i, i + concurrency).map(async ({ topic, partition, end }) => {
              const k = key(topic, partition);
              const from = positions.get(k)!;
              const records = await this.log.read(topic, partition, from, maxBytes);
              try {
                const next = await this.deliver(config, topic, partition, end, records);
                positions.set(k, next ?? from);
                // A handler that took nothing gets the same records again, after a breath rather than at once.
                if (next === null) await delay(RETRY_AFTER_ERROR_MS / 10);
              } catch (err) {
                if (this.stopping) return;
                // As kafkajs does after a failed handler: back to the committed offset, after a pause.
                const offsets = await this.log.committed(this.config.groupId);
                const at = offsets[topic]?.[String(partition)];
                positions.set(k, at !== undefined ? BigInt(at) : this.fromBeginning ? 0n : from);
                this.logger?.error(
                  { err, groupId: this.config.groupId, topic, partition },
                  'handler failed; retrying from the committed offset',
                );
                await delay(RETRY_AFTER_ERROR_MS);
              }
            }),
          );
        }
      }
    } finally {
      leave();
    }
  }

  /** Hands one fetch to the handler; returns the next position (null: unchanged). */
  private async deliver(
    config: ConsumerRunConfig,
    topic: string,
    partition: number,
    end: bigint,
    records: StoredRecord[],
  ): Promise<bigint | null> {
    const autoCommit = config.autoCommit ?? true;
    const messages = records.map(toKafkaMessage);
    let resolved: bigint | null = null;
    const commitResolved = async () => {
      if (autoCommit && resolved !== null) {
        await this.log.commit(this.config.groupId, [{ topic, partition, offset: (resolved + 1n).toString() }]);
      }
    };
    const heartbeat = async () => undefined;
    const pause = () => () => undefined;

    if (config.eachBatch) {
      const last = messages[messages.length - 1];
      await config.eachBatch({
        batch: {
          topic,
          partition,
          highWatermark: end.toString(),
          messages,
          isEmpty: () => messages.length === 0,
          firstOffset: () => messages[0]?.offset ?? null,
          lastOffset: () => last?.offset ?? (end - 1n).toString(),
          offsetLag: () => (last ? (end - 1n - BigInt(last.offset)).toString() : '0'),
          offsetLagLow: () => (messages[0] ? (end - 1n - BigInt(messages[0].offset)).toString() : '0'),
        },
        resolveOffset: (offset) => {
          resolved = BigInt(offset);
        },
        heartbeat,
        pause,
        commitOffsetsIfNecessary: async (offsets) => {
          if (offsets) await this.log.commit(this.config.groupId, offsets.topics.flatMap(flattenOffsets));
          else await commitResolved();
        },
        uncommittedOffsets: () => ({
          topics: resolved === null ? [] : [{ topic, partitions: [{ partition, offset: (resolved + 1n).toString() }] }],
        }),
        isRunning: () => !this.stopping,
        isStale: () => false,
      });
      if ((config.eachBatchAutoResolve ?? true) && last) resolved = BigInt(last.offset);
      await commitResolved();
      return resolved === null ? null : resolved + 1n;
    }

    if (config.eachMessage) {
      try {
        for (const message of messages) {
          if (this.stopping) break;
          await config.eachMessage({ topic, partition, message, heartbeat, pause });
          resolved = BigInt(message.offset);
        }
      } finally {
        // What was handled stays handled, even when a later message failed.
        await commitResolved();
      }
      return resolved === null ? null : resolved + 1n;
    }
    throw new Error('run() needs eachMessage or eachBatch');
  }
}

function flattenOffsets(t: { topic: string; partitions: { partition: number; offset: string }[] }) {
  return t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: p.offset }));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function embeddedAdmin(log: EventLog, groups: GroupCoordinator): LogAdmin {
  return {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => log.listTopics(),
    createTopics: async ({ topics }) => {
      let created = false;
      for (const t of topics)
        created = (await log.createTopic({ topic: t.topic, numPartitions: t.numPartitions ?? 1 })) || created;
      return created;
    },
    fetchTopicOffsets: async (topic) =>
      log
        .endOffsets(topic)
        .map((end, partition) => ({ partition, offset: end.toString(), high: end.toString(), low: '0' })),
    fetchOffsets: async ({ groupId, topics }) => {
      const committed = await log.committed(groupId);
      return (topics ?? Object.keys(committed)).map((topic) => ({
        topic,
        partitions: log.endOffsets(topic).map((_, partition) => ({
          partition,
          offset: committed[topic]?.[String(partition)] ?? '-1',
          metadata: null,
        })),
      }));
    },
    deleteGroups: async (groupIds) => {
      for (const groupId of groupIds) await log.deleteGroup(groupId);
      return groupIds.map((groupId) => ({ groupId, errorCode: 0 }));
    },
    describeGroups: async (groupIds) => ({
      groups: groupIds.map((groupId) => ({
        groupId,
        members: [],
        protocol: '',
        protocolType: 'consumer',
        state: groups.active(groupId) ? 'Stable' : 'Empty',
        errorCode: 0,
      })),
    }),
    describeCluster: async () => ({
      brokers: [{ nodeId: 0, host: 'embedded', port: 0 }],
      controller: 0,
      clusterId: 'embedded',
    }),
  };
}

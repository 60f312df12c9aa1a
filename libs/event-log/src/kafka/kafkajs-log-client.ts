import { CompressionTypes, type Consumer, type Kafka, type Message } from 'kafkajs';
import {
  DEFAULT_FETCH_MAX_WAIT_MS,
  type EventLogClient,
  type LogAdmin,
  type LogProducer,
  type RunningLogConsumer,
  type Subscription,
} from '../log-client';
import { MemoizedDefaultPartitioner } from './partitioner';
import { isTopicNotYetKnown, waitForTopicLeaders } from './topic-leaders';
import { recordPartitions, unacknowledgedRecords } from './unacknowledged-records';

/** Sends of the records a send left unwritten, before the append fails (the caller then retries it whole). */
const MAX_RESENDS = 5;

/** The event log on a Kafka cluster, through kafkajs. */
export function kafkaLogClient(kafka: Kafka): EventLogClient {
  return {
    producer: () => kafkaProducer(kafka),
    async consume(subscription, eachBatch) {
      let stopping = false;
      let current: Consumer | undefined;
      let restarting: NodeJS.Timeout | undefined;
      /** Per partition, the read position `advance` moved ahead of the commits, while this member holds it. */
      const advanced = new Map<string, bigint>();
      const start = async (): Promise<void> => {
        const consumer = newConsumer(kafka, subscription);
        current = consumer;
        // kafkajs restarts a consumer after a retriable error only; after any
        // other (its commit refused because the group moved on while a broker
        // was frozen, say) it stays down for good while the process lives, so a
        // fresh member joins instead (docs/decisions/0024-a-stopped-consumer-replaced-by-a-fresh-member.md).
        consumer.on(consumer.events.CRASH, ({ payload }) => {
          if (payload.restart || stopping) return;
          restarting = setTimeout(() => {
            restarting = undefined;
            if (!stopping) void start().catch(() => undefined);
          }, 1000);
        });
        await consumer.connect();
        await consumer.subscribe({ topics: subscription.topics, fromBeginning: subscription.fromBeginning });
        await consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: subscription.partitionsConcurrently ?? 1,
          eachBatch: async (payload) => {
            const owned = () => payload.isRunning() && !payload.isStale();
            if (!owned()) return;
            const { topic, partition, messages } = payload.batch;
            const key = `${topic}/${partition}`;
            // A batch from behind the advanced position: the partition was assigned anew and read from its commit.
            const first = messages[0];
            if (first && BigInt(first.offset) < (advanced.get(key) ?? -1n)) advanced.delete(key);
            await eachBatch(
              { topic, partition, records: messages, highWatermark: payload.batch.highWatermark },
              {
                async commit(nextOffset) {
                  // Resolving moves kafkajs's own fetch position (never back behind an advance);
                  // committing makes it the group's.
                  if (BigInt(nextOffset) > (advanced.get(key) ?? -1n)) {
                    payload.resolveOffset((BigInt(nextOffset) - 1n).toString());
                  }
                  await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
                },
                advance(nextOffset) {
                  advanced.set(key, BigInt(nextOffset));
                  payload.resolveOffset((BigInt(nextOffset) - 1n).toString());
                },
                heartbeat: () => payload.heartbeat(),
                owned,
              },
            );
          },
        });
      };
      await start();
      const running: RunningLogConsumer = {
        async stop() {
          stopping = true;
          clearTimeout(restarting);
          await current?.disconnect();
        },
      };
      return running;
    },
    admin: () => kafkaAdmin(kafka),
  };
}

function newConsumer(kafka: Kafka, subscription: Subscription): Consumer {
  const sessionTimeout = subscription.sessionTimeoutMs ?? 30_000;
  return kafka.consumer({
    groupId: subscription.groupId,
    sessionTimeout,
    heartbeatInterval: Math.min(3000, sessionTimeout / 3),
    maxWaitTimeInMs: subscription.fetchMaxWaitMs ?? DEFAULT_FETCH_MAX_WAIT_MS,
    ...(subscription.fetchMinBytes === undefined ? {} : { minBytes: subscription.fetchMinBytes }),
    ...(subscription.maxBytesPerPartition === undefined
      ? {}
      : {
          maxBytesPerPartition: subscription.maxBytesPerPartition,
          maxBytes: Math.max(subscription.maxBytesPerPartition * 2, 10 * 1024 * 1024),
        }),
  });
}

/**
 * Appends with `acks=all` and without kafkajs's idempotence: its idempotent producer can reuse a failed request's
 * sequence numbers when a broker dies under concurrent appends, and the new leader then answers a batch it never wrote
 * as a duplicate, with success. A retried record may be appended twice instead: every event carries its id, and the
 * consumers (and the data teams' docs) drop repeats by it
 * (docs/decisions/0021-appends-at-least-once-without-idempotence.md).
 */
function kafkaProducer(kafka: Kafka): LogProducer {
  // Murmur2, as the Java client: a key lands in the same partition whoever produces it.
  const partitions = recordPartitions(MemoizedDefaultPartitioner);
  const producer = kafka.producer({
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: partitions.createPartitioner,
  });
  return {
    connect: () => producer.connect().then(() => undefined),
    disconnect: () => producer.disconnect(),
    async append(topic, records, options = {}) {
      // Our records are kafkajs messages without its optional fields.
      let pending = records as Message[];
      for (let resends = 0; pending.length > 0; resends++) {
        if (resends > MAX_RESENDS) {
          // Retriable: the broker, not the records, is at fault (see isTransientFailure).
          throw Object.assign(
            new Error(`Kafka did not acknowledge ${pending.length} records of ${topic} after ${MAX_RESENDS} resends`),
            { retriable: true },
          );
        }
        const acknowledged = await producer.send({
          topic,
          acks: -1,
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
          ...(options.compression === 'lz4' ? { compression: CompressionTypes.LZ4 } : {}),
          messages: pending,
        });
        pending = unacknowledgedRecords(topic, pending, acknowledged, partitions.partitionOf);
      }
    },
  };
}

/** kafkajs's own wait for a new topic's leaders (its `createTopics` timeout). */
const TOPIC_LEADERS_TIMEOUT_MS = 5000;

function kafkaAdmin(kafka: Kafka): LogAdmin {
  const admin = kafka.admin();
  return {
    connect: () => admin.connect(),
    disconnect: () => admin.disconnect(),
    async createMissingTopics(specs, replicationFactor) {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((s) => !existing.has(s.topic));
      if (missing.length === 0) return [];
      const topics = missing.map((s) => s.topic);
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((s) => ({
            topic: s.topic,
            numPartitions: s.numPartitions,
            ...(replicationFactor === undefined ? {} : { replicationFactor }),
            configEntries: s.configEntries,
          })),
        });
      } catch (error) {
        // Created, but the broker asked for the leaders had not heard of them yet: wait for them here.
        if (!isTopicNotYetKnown(error)) throw error;
        await waitForTopicLeaders(admin, topics, TOPIC_LEADERS_TIMEOUT_MS);
      }
      return topics;
    },
    async partitionOffsets(topic) {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.map(({ partition, low, high }) => ({ partition, low, high }));
    },
    async committedOffsets(groupId, topic) {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return (committed?.partitions ?? []).map(({ partition, offset }) => ({ partition, offset }));
    },
    async groupIsActive(groupId) {
      const { groups } = await admin.describeGroups([groupId]);
      return groups.some((g) => g.members.length > 0);
    },
    async deleteGroup(groupId) {
      await admin.deleteGroups([groupId]);
    },
  };
}

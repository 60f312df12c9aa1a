import type { Consumer, Kafka, Message } from 'kafkajs';
import type { EventLogClient, LogAdmin, LogProducer, RunningLogConsumer, Subscription } from './log-client';
import { MemoizedDefaultPartitioner } from './partitioner';
import { producerIdentityLost } from './producer-identity';

/** The event log on a Kafka cluster, through kafkajs. */
export function kafkaLogClient(kafka: Kafka): EventLogClient {
  return {
    producer: () => kafkaProducer(kafka),
    async consume(subscription, eachBatch) {
      let stopping = false;
      let current: Consumer | undefined;
      let restarting: NodeJS.Timeout | undefined;
      const start = async (): Promise<void> => {
        const consumer = newConsumer(kafka, subscription);
        current = consumer;
        // kafkajs restarts a consumer after a retriable error only; after any
        // other (its commit refused because the group moved on while a broker
        // was frozen, say) it stays down for good while the process lives. The
        // chaos run saw both click projectors stop that way. A fresh member joins instead.
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
            await eachBatch(
              { topic, partition, records: messages },
              {
                async commit(nextOffset) {
                  // Resolving moves kafkajs's own fetch position; committing makes it the group's.
                  payload.resolveOffset((BigInt(nextOffset) - 1n).toString());
                  await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
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
    ...(subscription.fetchMinBytes === undefined
      ? {}
      : { minBytes: subscription.fetchMinBytes, maxWaitTimeInMs: subscription.fetchMaxWaitMs ?? 500 }),
    ...(subscription.maxBytesPerPartition === undefined
      ? {}
      : {
          maxBytesPerPartition: subscription.maxBytesPerPartition,
          maxBytes: Math.max(subscription.maxBytesPerPartition * 2, 10 * 1024 * 1024),
        }),
  });
}

function kafkaProducer(kafka: Kafka): LogProducer {
  const create = () =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // Murmur2, as the Java client: a key lands in the same partition whoever produces it.
      createPartitioner: MemoizedDefaultPartitioner,
    });
  let producer = create();
  let connected = false;
  /** A replaced producer connects on its first append (the broker may still be away when it is made). */
  let fresh = false;
  return {
    async connect() {
      await producer.connect();
      connected = true;
    },
    async disconnect() {
      connected = false;
      await producer.disconnect();
    },
    async append(topic, records, options = {}) {
      if (fresh && connected) {
        await producer.connect();
        fresh = false;
      }
      const used = producer;
      try {
        await used.send({
          topic,
          acks: -1,
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
          // Our records are kafkajs messages without its optional fields.
          messages: records as Message[],
        });
      } catch (err) {
        // The caller retries (or settles) as for any failed append; the next append goes out under a new identity.
        if (producerIdentityLost(err) && used === producer) {
          producer = create();
          fresh = true;
          await used.disconnect().catch(() => undefined);
        }
        throw err;
      }
    },
  };
}

function kafkaAdmin(kafka: Kafka): LogAdmin {
  const admin = kafka.admin();
  return {
    connect: () => admin.connect(),
    disconnect: () => admin.disconnect(),
    async createMissingTopics(specs, replicationFactor) {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((s) => !existing.has(s.topic));
      if (missing.length === 0) return [];
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.numPartitions,
          ...(replicationFactor === undefined ? {} : { replicationFactor }),
          configEntries: s.configEntries,
        })),
      });
      return missing.map((s) => s.topic);
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

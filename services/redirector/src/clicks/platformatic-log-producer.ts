import { ProduceAcks, Producer } from '@platformatic/kafka';
import { partitionOfKey, type LogProducer, type OutgoingRecord } from '@shortlink/kafka';

export interface PlatformaticLogProducerOptions {
  brokers: string[];
  clientId: string;
}

/** A producer with the event log's contract, and the partition counts it already knows. */
export interface HotLogProducer extends LogProducer {
  /** The topic's partition count, from the producer's own cluster metadata (refreshed at most every minute). */
  partitionCount(topic: string): Promise<number>;
}

const toBuffer = (value: Buffer | string | null): Buffer | undefined =>
  value === null ? undefined : Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');

/**
 * The click worker's producer on @platformatic/kafka instead of kafkajs: the
 * one hot producer of the system (every click goes through it), where
 * kafkajs's record encoding cost several times what the rest of a click did.
 * Measured A/B in docs/performance.md ("A cheaper click"). Everything else
 * stays on kafkajs (`kafkajs-log-client.ts` in @shortlink/kafka).
 *
 * The contract is LogProducer's: `acks=all`, resolved only once every record
 * is durable, rejected otherwise (the click queue sends the same events
 * again, and the projector drops repeats); no idempotence, as for kafkajs (see
 * there why). A keyed record goes to the partition Kafka's Java client would
 * choose: the partition is computed here (murmur2, `partitionOfKey`) from the
 * topic's partition count, not left to this client's own partitioner, which
 * differs from Java's.
 *
 * It runs only in the click worker thread: the package is ESM, which a worker
 * started from the built JavaScript loads (Node ≥ 20.19), and which the test
 * runner's module system would not.
 */
export function platformaticLogProducer(options: PlatformaticLogProducerOptions): HotLogProducer {
  const producer = new Producer({
    clientId: options.clientId,
    bootstrapBrokers: options.brokers,
    acks: ProduceAcks.ALL,
    idempotent: false,
    autocreateTopics: false,
    metadataMaxAge: 60_000,
    timeout: 10_000,
    retries: 3,
    retryDelay: 250,
  });
  const partitionCount = async (topic: string): Promise<number> => {
    const metadata = await producer.metadata({ topics: [topic] });
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    if (count === 0) throw Object.assign(new Error(`topic ${topic} has no partitions`), { retriable: true });
    return count;
  };
  return {
    partitionCount,
    // Connects to the cluster and reads the clicks topic's metadata: a broker that cannot be reached fails the start.
    async connect() {
      await producer.metadata({ topics: [] });
    },
    disconnect: () => producer.close(),
    async append(topic, records: readonly OutgoingRecord[]) {
      if (records.length === 0) return;
      const count = await partitionCount(topic);
      let keyless = 0;
      await producer.send({
        messages: records.map((record) => ({
          topic,
          key: toBuffer(record.key),
          value: toBuffer(record.value),
          partition: record.key === null ? keyless++ % count : partitionOfKey(record.key, count),
          // This client writes header names as given: bytes, like the values.
          headers: new Map(
            Object.entries(record.headers ?? {}).flatMap(([name, value]): [Buffer, Buffer][] =>
              value === undefined ? [] : [[Buffer.from(name), toBuffer(Array.isArray(value) ? value.at(-1)! : value)!]],
            ),
          ),
        })),
      });
    },
  };
}

import type { Consumer, Kafka } from 'kafkajs';
import { eventually, infraEnv, uniqueSuffix } from '@shortlink/testing';
import { createKafka } from './client';
import { ensureTopics } from './admin';
import { kafkaLogClient } from './kafkajs-log-client';

const env = infraEnv(process.env);

describe('kafka adapter (real broker)', () => {
  let kafka: Kafka;
  const topic = `test.roundtrip.${uniqueSuffix()}`;
  const groupId = `test.group.${uniqueSuffix()}`;

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'kafka-int-test' });
    const created = await ensureTopics(kafkaLogClient(kafka), [{ topic, numPartitions: 2, configEntries: [] }]);
    expect(created).toEqual([topic]);
    // A second call finds the topic and leaves it alone.
    expect(await ensureTopics(kafkaLogClient(kafka), [{ topic, numPartitions: 2, configEntries: [] }])).toEqual([]);
  });

  async function produce(values: string[]): Promise<void> {
    // Idempotent: a resent request (a timeout on a loaded machine) must not append a value twice here.
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: values.map((value) => ({ key: value, value })) });
    } finally {
      await producer.disconnect();
    }
  }

  /** Runs a consumer in the group until `count` messages arrived, committing each one. */
  async function consume(count: number): Promise<string[]> {
    const seen: string[] = [];
    const consumer: Consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        seen.push(message.value!.toString());
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      },
    });
    try {
      await eventually(async () => (seen.length >= count ? true : undefined), 30_000, `${count} messages`);
      // Give a wrongly re-delivered message a moment to show up before judging.
      await new Promise((r) => setTimeout(r, 500));
      return seen;
    } finally {
      await consumer.disconnect();
    }
  }

  it('delivers in a consumer group, and a restarted consumer resumes from the committed offset', async () => {
    await produce(['a', 'b', 'c']);
    expect((await consume(3)).sort()).toEqual(['a', 'b', 'c']);

    await produce(['d', 'e']);
    // Same group after a restart: only what was not committed yet.
    expect((await consume(2)).sort()).toEqual(['d', 'e']);

    const admin = kafka.admin();
    await admin.connect();
    try {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const committed = offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
      expect(committed).toBe(5);
    } finally {
      await admin.disconnect();
    }
  });

  it('stops an idle consumer without waiting out a long fetch', async () => {
    const idleTopic = `test.idle-stop.${uniqueSuffix()}`;
    const log = kafkaLogClient(kafka);
    await ensureTopics(log, [{ topic: idleTopic, numPartitions: 1, configEntries: [] }]);
    const seen: string[] = [];
    const consumer = await log.consume(
      {
        groupId: `test.idle-stop.${uniqueSuffix()}`,
        topics: [idleTopic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
      },
      async ({ records }, control) => {
        for (const record of records) seen.push(String(record.value));
        const last = records.at(-1);
        if (last) await control.commit((BigInt(last.offset) + 1n).toString());
      },
    );
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: idleTopic, messages: [{ value: 'only' }] });
    await producer.disconnect();
    await eventually(async () => (seen.length > 0 ? seen : undefined), 30_000, 'the record');
    expect(seen).toEqual(['only']);
    // The topic is idle now: the consumer's next fetch waits at the broker for records that do not come.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stopping = performance.now();
    await consumer.stop();
    // kafkajs's own default wait is 5 s, and a stop would wait for it.
    expect(performance.now() - stopping).toBeLessThan(2000);
  });
});

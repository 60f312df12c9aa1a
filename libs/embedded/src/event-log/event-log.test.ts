import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Partitioners, type KafkaMessage } from 'kafkajs';
import { runConsumer, waitForGroupToCatchUp, type EventLogClient } from '@shortlink/kafka';
import { embeddedLogClient } from './embedded-client';
import { EventLog } from './event-log';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let dir: string;
let log: EventLog;
let client: EventLogClient;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'event-log-'));
  log = await EventLog.open(dir);
  client = embeddedLogClient(log, quiet);
  await client.admin().createTopics({
    topics: [
      { topic: 't', numPartitions: 3 },
      { topic: 'dlq', numPartitions: 1 },
    ],
  });
});

afterEach(async () => {
  await log.close();
  await rm(dir, { recursive: true, force: true });
});

async function reopen(): Promise<void> {
  await log.close();
  log = await EventLog.open(dir);
  client = embeddedLogClient(log, quiet);
}

function collect(groupId: string, fromBeginning = true) {
  const seen: { partition: number; offset: string; value: string }[] = [];
  const consumer = client.consumer({ groupId });
  const start = async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: ['t'], fromBeginning });
    await consumer.run({
      eachMessage: async ({ partition, message }) =>
        void seen.push({ partition, offset: message.offset, value: message.value!.toString() }),
    });
  };
  return { seen, consumer, start };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('EventLog', () => {
  it('keeps records, keys, headers and bytes exactly, across a reopen', async () => {
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x0a]);
    const producer = client.producer();
    const [meta] = await producer.send({
      topic: 't',
      messages: [
        { key: 'k1', value: '{"a":1}', headers: { 'event-type': 'X' }, partition: 1 },
        { key: null, value: binary, partition: 1 },
        { key: 'k3', value: null, partition: 1 },
      ],
    });
    expect(meta).toMatchObject({ topicName: 't', partition: 1, baseOffset: '0' });
    await reopen();
    const records = await log.read('t', 1, 0n, 1 << 20);
    expect(records.map((r) => [r.offset, r.key?.toString() ?? null, r.value, r.headers])).toEqual([
      [0n, 'k1', Buffer.from('{"a":1}'), { 'event-type': Buffer.from('X') }],
      [1n, null, binary, {}],
      [2n, 'k3', null, {}],
    ]);
    expect(log.endOffsets('t')).toEqual([0n, 3n, 0n]);
  });

  it('puts a key in the partition Kafka would (murmur2, as kafkajs and the Java client)', async () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const partitionMetadata = [0, 1, 2].map((p) => ({
      partitionId: p,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    for (const key of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
      const [meta] = await client.producer().send({ topic: 't', messages: [{ key, value: key }] });
      expect(meta!.partition).toBe(partitioner({ topic: 't', partitionMetadata, message: { key, value: key } }));
    }
  });

  it('cuts a torn last line (a write cut short by a kill) when it reopens', async () => {
    await client.producer().send({
      topic: 't',
      messages: [
        { value: 'one', partition: 0 },
        { value: 'two', partition: 0 },
      ],
    });
    const file = join(dir, 'topics', 't', '0.log');
    await appendFile(file, '{"o":"2","t":1,"v":"thr');
    await reopen();
    expect((await log.read('t', 0, 0n, 1 << 20)).map((r) => r.value!.toString())).toEqual(['one', 'two']);
    const [meta] = await client.producer().send({ topic: 't', messages: [{ value: 'three', partition: 0 }] });
    expect(meta!.baseOffset).toBe('2');
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('refuses a topic that does not exist, as a broker without auto-creation does', async () => {
    await expect(client.producer().send({ topic: 'nope', messages: [{ value: 'x' }] })).rejects.toThrow(
      /does not host this topic/,
    );
  });
});

describe('consumer groups on the embedded log', () => {
  it('delivers from the beginning, commits, and resumes after the committed offset', async () => {
    const producer = client.producer();
    await producer.send({ topic: 't', messages: ['a', 'b', 'c'].map((v) => ({ key: v, value: v })) });
    const first = collect('g');
    await first.start();
    await until(() => first.seen.length === 3);
    await first.consumer.disconnect();

    await producer.send({ topic: 't', messages: ['d', 'e'].map((v) => ({ key: v, value: v })) });
    await reopen();
    const second = collect('g');
    await second.start();
    await until(() => second.seen.length === 2);
    expect(second.seen.map((s) => s.value).sort()).toEqual(['d', 'e']);
    await second.consumer.disconnect();

    const offsets = await client.admin().fetchOffsets({ groupId: 'g', topics: ['t'] });
    const committed = offsets[0]!.partitions.reduce((sum, p) => sum + Number(p.offset === '-1' ? 0 : p.offset), 0);
    expect(committed).toBe(5);
  });

  it('starts a new group at the end unless asked for the beginning', async () => {
    await client.producer().send({ topic: 't', messages: [{ value: 'old', partition: 0 }] });
    const late = collect('late', false);
    await late.start();
    await new Promise((r) => setTimeout(r, 100));
    await client.producer().send({ topic: 't', messages: [{ value: 'new', partition: 0 }] });
    await until(() => late.seen.length === 1);
    expect(late.seen[0]!.value).toBe('new');
    await late.consumer.disconnect();
  });

  it('lets a second member of a group take over only when the first leaves', async () => {
    await client.producer().send({ topic: 't', messages: [{ value: 'x', partition: 2 }] });
    const a = collect('shared');
    const b = collect('shared');
    await a.start();
    await b.start();
    await until(() => a.seen.length === 1);
    await client.producer().send({ topic: 't', messages: [{ value: 'y', partition: 2 }] });
    await until(() => a.seen.length === 2);
    expect(b.seen).toEqual([]);
    await a.consumer.disconnect();
    await client.producer().send({ topic: 't', messages: [{ value: 'z', partition: 2 }] });
    await until(() => b.seen.length === 1);
    expect(b.seen[0]!.value).toBe('z');
    await b.consumer.disconnect();
  });

  it('redelivers what a batch handler did not resolve, from the committed offset', async () => {
    await client
      .producer()
      .send({ topic: 't', messages: ['1', '2', '3', '4'].map((v) => ({ value: v, partition: 0 })) });
    const batches: string[][] = [];
    let fail = true;
    const consumer = client.consumer({ groupId: 'batches' });
    await consumer.subscribe({ topics: ['t'], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        batches.push(payload.batch.messages.map((m: KafkaMessage) => m.value!.toString()));
        payload.resolveOffset(payload.batch.messages[1]!.offset);
        await consumer.commitOffsets([{ topic: 't', partition: 0, offset: '2' }]);
        if (fail) {
          fail = false;
          throw new Error('insert failed');
        }
      },
    });
    await until(() => batches.length >= 2, 5000);
    await consumer.disconnect();
    expect(batches[0]).toEqual(['1', '2', '3', '4']);
    expect(batches[1]).toEqual(['3', '4']); // from the committed offset, after the failure
  });

  it("runs the project's own consumer (runConsumer) and catch-up check unchanged", async () => {
    await client
      .producer()
      .send({ topic: 't', messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `${i}` })) });
    const handled: string[] = [];
    let failures = 0;
    const running = await runConsumer({
      kafka: client,
      groupId: 'project',
      topics: ['t'],
      logger: quiet,
      deadLetterProducer: client.producer(),
      deadLetterTopic: 'dlq',
      maxBackoffMs: 10,
      partitionsConcurrently: 3,
      handler: async (message) => {
        const value = message.value!.toString();
        if (value === '7' && failures++ < 2) throw new Error('transient');
        if (value === '13') return { kind: 'dead-letter', reason: 'unlucky' };
        handled.push(value);
        return { kind: 'ok' };
      },
    });
    await expect(waitForGroupToCatchUp(client.admin(), 'project', 't', 5000)).resolves.toBe(true);
    await running.stop();
    expect(handled.sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 30 }, (_, i) => `${i}`).filter((v) => v !== '13'),
    );
    const parked = await log.read('dlq', 0, 0n, 1 << 20);
    expect(parked.map((r) => [r.value!.toString(), r.headers['dlq-reason']!.toString()])).toEqual([['13', 'unlucky']]);
    expect(running.metrics.byTopic.get('t')).toMatchObject({ ok: 29, deadLetter: 1, retries: 2 });
  });
});

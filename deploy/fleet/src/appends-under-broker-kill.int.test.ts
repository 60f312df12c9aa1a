import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, ensureTopics, kafkaLogClient, type LogProducer } from '@shortlink/event-log';
import { bootstrapOf, fetchKafkaJars, kafkaNodeProcess, prepareKafkaCluster } from './kafka-cluster';
import { kafkaClusterLayout } from './fleet-layout';
import { Supervisor, type ProcessSpec } from './supervisor';

/**
 * What the event log promises every service: an append that resolved is in the topic. Three Kafka nodes (replication 3,
 * min ISR 2), 40 appenders of small batches through the project's Kafka adapter, and one node killed with `kill -9` and
 * restarted three times under that load; kafkajs's idempotent producer, or a send resolved without writing one of its
 * partitions, loses acknowledged records here (docs/decisions/0021-appends-at-least-once-without-idempotence.md).
 */
const ROOT = join(__dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let stateDir: string;
let supervisor: Supervisor;
let nodes: ProcessSpec[];
let brokers: string[];

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'appends-'));
  const layout = kafkaClusterLayout(ROOT, stateDir, 2000);
  // Fetched here, as the fleet does: whether infra:up ran, or a Kafka already listens on 9092, is not this test's business.
  fetchKafkaJars(ROOT);
  prepareKafkaCluster(layout);
  supervisor = new Supervisor(join(stateDir, 'run'));
  nodes = layout.nodes.map((node) => kafkaNodeProcess(layout, node));
  brokers = bootstrapOf(layout.nodes);
  await Promise.all(nodes.map((node) => supervisor.start(node)));
}, 180_000);

afterAll(async () => {
  for (const node of nodes ?? []) await supervisor.stop(node.name, 'SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

it('keeps every acknowledged append when a broker is killed under concurrent appends', async () => {
  const kafka = createKafka({ brokers, clientId: 'appends-under-broker-kill' });
  const topic = `appends-${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  const log = kafkaLogClient(kafka);
  // As the services create theirs (a new topic's leaders waited for on every broker).
  await ensureTopics(
    log,
    [{ topic, numPartitions: 12, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
    3,
  );

  const producers: LogProducer[] = [log.producer(), log.producer()];
  await Promise.all(producers.map((p) => p.connect()));
  const acknowledged = new Set<string>();
  let stopping = false;
  const appender = async (i: number) => {
    const producer = producers[i % producers.length]!;
    while (!stopping) {
      const ids = Array.from({ length: 1 + (i % 3) }, () => randomUUID());
      try {
        await producer.append(
          topic,
          ids.map((id) => ({ key: id, value: id })),
          { timeoutMs: 5000 },
        );
        for (const id of ids) acknowledged.add(id);
      } catch {
        await sleep(50); // refused: not acknowledged, so not owed
      }
    }
  };
  const appenders = Array.from({ length: 40 }, (_, i) => appender(i));

  const victim = nodes[0]!;
  for (let round = 0; round < 3; round++) {
    await sleep(3000);
    await supervisor.kill(victim.name);
    await sleep(6000);
    await supervisor.start(victim);
    await sleep(3000);
  }
  stopping = true;
  await Promise.all(appenders);
  await Promise.all(producers.map((p) => p.disconnect()));

  const inTopic = new Set<string>();
  const total = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  const consumer = kafka.consumer({ groupId: `read-${topic}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let read = 0;
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        inTopic.add(String(message.value));
        if (++read >= total) resolve();
      },
    });
  });
  await consumer.disconnect();
  await admin.disconnect();

  const missing = [...acknowledged].filter((id) => !inTopic.has(id));
  expect(acknowledged.size).toBeGreaterThan(5000);
  expect(missing).toEqual([]);
}, 240_000);

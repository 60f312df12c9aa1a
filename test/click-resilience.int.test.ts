import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { KafkaMessage, Producer } from 'kafkajs';
import { createClickHouse } from '@shortlink/clickhouse';
import { createEvent, encodeEvent, type ClickRecorded } from '@shortlink/events';
import { eventually } from '@shortlink/testing';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, freePort, startProcess, type RunningProcess } from './support/processes';

const LINK = randomUUID();
const ACCOUNT = randomUUID();

function click(n: number): ClickRecorded {
  return createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: LINK,
      accountId: ACCOUNT,
      slug: 'resilient',
      clickedAt: Date.now(),
      visitorHash: createHash('sha256')
        .update(`visitor-${n % 50}`)
        .digest('hex'),
      referrer: 'Direct',
      country: 'DE',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    },
    { eventId: randomUUID(), occurredAt: new Date().toISOString() },
  );
}

/**
 * The projector against a ClickHouse that goes away mid-stream and comes back,
 * and against events it can never process.
 */
describe('click projection when things go wrong', () => {
  let infra: TestInfra;
  let producer: Producer;
  let dataPath: string;
  let chPort: number;
  let clickhouseServer: RunningProcess | undefined;
  let projector: RunningProcess | undefined;
  let ch: ClickHouseClient;
  const database = `resilience_${randomUUID().replace(/-/g, '').slice(0, 10)}`;

  const startClickHouse = () =>
    startProcess(
      'libs/chdb-server/dist/cli.js',
      {},
      {
        port: chPort,
        args: (port) => ['--path', dataPath, '--host', '127.0.0.1', '--port', String(port)],
        healthPath: '/ping',
      },
    );

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    producer = infra.kafka.producer();
    await producer.connect();
    dataPath = await mkdtemp(join(tmpdir(), 'chdb-resilience-'));
    chPort = await freePort();
    clickhouseServer = await startClickHouse();
    ch = createClickHouse({
      url: `http://127.0.0.1:${chPort}`,
      database,
      username: 'default',
      password: '',
      applicationName: 'test',
    });
    projector = await startProcess('services/projector/dist/main.js', {
      DATABASE_URL: infra.db.url,
      KAFKA_BROKERS: infra.brokers.join(','),
      KAFKA_TOPIC_PREFIX: infra.topicPrefix,
      CLICKHOUSE_URL: `http://127.0.0.1:${chPort}`,
      CLICKHOUSE_DATABASE: database,
      CLICK_BATCH_SIZE: '50',
    });
  });

  afterAll(async () => {
    await projector?.stop();
    await clickhouseServer?.stop();
    await ch?.close();
    await producer?.disconnect();
    await infra?.close();
    await rm(dataPath, { recursive: true, force: true });
  });

  async function send(
    from: number,
    count: number,
    extra: { key: string; value: string; headers?: Record<string, string> }[] = [],
  ) {
    const events = Array.from({ length: count }, (_, i) => click(from + i));
    await producer.send({
      topic: infra.names.topics.clicks,
      acks: -1,
      messages: [...events.map((e) => ({ key: LINK, value: encodeEvent(e) })), ...extra],
    });
  }

  const count = async () =>
    (
      await (await ch.query({ query: 'SELECT count() AS n FROM clicks', format: 'JSONEachRow' })).json<{ n: number }>()
    )[0]!.n;

  it('backs off while ClickHouse is down and loses nothing when it returns', async () => {
    await send(0, 200);
    await eventually(async () => ((await count()) === 200 ? true : undefined), 60_000, '200 clicks');

    await clickhouseServer!.kill();
    await send(200, 300);
    // The projector keeps retrying the same batch; give it a few failures.
    await new Promise((r) => setTimeout(r, 4000));
    clickhouseServer = await startClickHouse();

    await eventually(async () => ((await count()) >= 500 ? true : undefined), 90_000, '500 clicks');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await count()).toBe(500);
    const [daily] = await (
      await ch.query({
        query: 'SELECT toUInt64(sum(clicks)) AS clicks, toUInt64(uniqExactMerge(visitors)) AS visitors FROM link_daily',
        format: 'JSONEachRow',
      })
    ).json<{ clicks: number; visitors: number }>();
    expect(daily).toEqual({ clicks: 500, visitors: 50 });
    expect(projector!.output()).toMatch(/ClickHouse insert failed; retrying/);
  }, 240_000);

  it('parks malformed clicks on the dead-letter topic and carries on', async () => {
    const junk = [
      { key: LINK, value: 'not json' },
      { key: LINK, value: JSON.stringify({ ...click(0), schemaVersion: 99 }) },
    ];
    // A record of several clicks with one bad line: the line alone is parked, the two clicks around it count.
    const badLine = '{"type":"ClickRecorded","truncated":';
    const mixed = {
      key: LINK,
      value: [JSON.stringify(click(540)), badLine, JSON.stringify(click(541))].join('\n'),
      headers: { 'event-count': '3' },
    };
    await send(500, 20, [...junk, mixed]);
    await send(520, 20);
    await eventually(async () => ((await count()) === 542 ? true : undefined), 60_000, '542 clicks');

    const parked: KafkaMessage[] = [];
    const consumer = infra.kafka.consumer({ groupId: `dlq-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: infra.names.topics.deadLetter, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void parked.push(message) });
    try {
      await eventually(async () => (parked.length >= 3 ? true : undefined), 30_000, 'three dead letters');
    } finally {
      await consumer.disconnect();
    }
    expect(parked.map((m) => m.value!.toString()).sort()).toEqual([...junk.map((j) => j.value), badLine].sort());
    const parkedLine = parked.find((m) => m.value!.toString() === badLine)!;
    expect(parkedLine.headers!['dlq-source-line']!.toString()).toBe('1');
    expect(parked.every((m) => m.headers!['dlq-source-topic']!.toString() === infra.names.topics.clicks)).toBe(true);
    expect(parked.map((m) => m.headers!['dlq-reason']!.toString()).join(' ')).toMatch(/invalid-json.*|invalid-event/);
  }, 120_000);
});

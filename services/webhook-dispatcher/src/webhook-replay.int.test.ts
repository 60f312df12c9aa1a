import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { Webhook } from 'standardwebhooks';
import {
  createEvent,
  encodeClickRecord,
  type ClickRecorded,
  type LinkCreated,
  type LinkUpdated,
} from '@shortlink/events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendEvents,
  embeddedLogClient,
  EventLog,
  kafkaNames,
  openKafka,
  topicSpecs,
  type EventLogClient,
  type KafkaNames,
  type LogProducer,
} from '@shortlink/event-log';
import type { ServiceModule } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createScratchPostgres, eventually, infraEnv, uniqueSuffix, type ScratchDatabase } from '@shortlink/testing';
import { sealSecret } from '@shortlink/webhooks';
import { composeWebhookDispatcher, type WebhookDispatcherSettings } from './wiring';
import { RETRY_DELAYS_MS } from './retry-schedule';

const env = infraEnv(process.env);
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The endpoints' side: every request kept and answered 204. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({ path: req.url ?? '', headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A logger keeping what it was told at `info`, to see which dispatcher ran a replay. */
function recordingLogger() {
  const infos: { obj: Record<string, unknown>; msg: string }[] = [];
  return {
    infos,
    error() {},
    warn() {},
    debug() {},
    info(obj: Record<string, unknown>, msg: string) {
      infos.push({ obj, msg });
    },
  };
}

interface OpenedLog {
  client: EventLogClient;
  close(): Promise<void>;
}

/** The two adapters a dispatcher runs on: Kafka, and the embedded log of one-process installs. */
const LOGS: [string, (names: KafkaNames) => Promise<OpenedLog>][] = [
  [
    'Kafka',
    async (names) => ({
      client: await openKafka({
        brokers: env.KAFKA_BROKERS.split(','),
        clientId: 'replay-int-test',
        logger: recordingLogger(),
        names,
      }),
      close: async () => undefined,
    }),
  ],
  [
    'the embedded log',
    async (names) => {
      const dir = await mkdtemp(join(tmpdir(), 'replay-log-'));
      const log = await EventLog.open(dir);
      const client = embeddedLogClient(log);
      await client.admin().createMissingTopics(topicSpecs(names, { links: 3, clicks: 3 }));
      return {
        client,
        close: async () => {
          await log.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];

describe.each(LOGS)('webhook replays on %s (real Postgres, a real receiver)', (_name, openLog) => {
  let opened: OpenedLog | undefined;
  let db: ScratchDatabase;
  let pool: Pool;
  let log: EventLogClient;
  let producer: LogProducer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const names = kafkaNames(`test-${uniqueSuffix()}.`);
  const accounts = { a: randomUUID(), b: randomUUID() };
  const hooks = { a: randomUUID(), b: randomUUID() };
  const secrets = { a: newSecret(), b: newSecret() };
  const sealing = randomBytes(32);
  const modules: ServiceModule[] = [];
  const loggers: ReturnType<typeof recordingLogger>[] = [];

  const settings: WebhookDispatcherSettings = {
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: true,
    WEBHOOKS_ALLOW_HTTP: true,
    WEBHOOKS_ENCRYPTION_KEY: sealing,
    WEBHOOKS_CONCURRENCY: 16,
    WEBHOOKS_PER_ENDPOINT_CONCURRENCY: 4,
    PUBLIC_BASE_URL: 'https://sho.rt',
    KAFKA_SESSION_TIMEOUT_MS: 10_000,
    WEBHOOKS_RETRY_SCHEDULE: [...RETRY_DELAYS_MS],
  };

  async function startDispatcher(): Promise<void> {
    const logger = recordingLogger();
    const module = composeWebhookDispatcher(
      settings,
      { kafka: log, names, pool, logger, metrics: createMetricsRegistry({ processMetrics: false }) },
      { batching: { maxItems: 100, maxWaitMs: 200 }, lookupTtlMs: 100, pollMs: 100, replayPollMs: 100 },
    );
    await module.start!();
    modules.push(module);
    loggers.push(logger);
  }

  // The window asked: [T, T + 10 min]; the events lie in and around it, an hour ago.
  const T = Date.now() - 3_600_000;
  const at = (minutes: number) => new Date(T + minutes * 60_000).toISOString();
  const linkA = randomUUID();
  const linkB = randomUUID();
  const created = (accountId: string, linkId: string, minutes: number, slug: string) =>
    createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId, accountId, slug, destinationUrl: 'https://example.com/', tag: null },
      { eventId: randomUUID(), occurredAt: at(minutes) },
    );
  const click = (accountId: string, linkId: string, minutes: number) =>
    createEvent<ClickRecorded>(
      'ClickRecorded',
      1,
      {
        linkId,
        accountId,
        slug: 'a-in',
        clickedAt: Date.parse(at(minutes)),
        visitorHash: 'c'.repeat(64),
        referrer: 'Direct',
        country: 'DE',
        userAgent: 'curl/8',
      },
      { eventId: randomUUID(), occurredAt: at(minutes) },
    );
  const events = {
    aBefore: created(accounts.a, randomUUID(), -5, 'a-before'),
    aIn: created(accounts.a, linkA, 1, 'a-in'),
    aInUpdated: createEvent<LinkUpdated>(
      'LinkUpdated',
      1,
      {
        linkId: linkA,
        accountId: accounts.a,
        slug: 'a-in',
        version: 2,
        destinationUrl: 'https://example.com/2',
        tag: null,
        changedFields: ['destinationUrl'],
      },
      { eventId: randomUUID(), occurredAt: at(2) },
    ),
    aAfter: created(accounts.a, randomUUID(), 20, 'a-after'),
    bIn: created(accounts.b, linkB, 1, 'b-in'),
  };
  const clicks = {
    aIn: [click(accounts.a, linkA, 3), click(accounts.a, linkA, 4), click(accounts.a, linkA, 9)],
    aOut: [click(accounts.a, linkA, -1), click(accounts.a, linkA, 11)],
    bIn: [click(accounts.b, linkB, 3)],
  };

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = await openDatabase({
      connectionString: db.url,
      max: 10,
      applicationName: 'replay-int-test',
      migrationsDir: MIGRATIONS_DIR,
    });
    opened = await openLog(names);
    log = opened.client;
    producer = log.producer();
    await producer.connect();
    receiver = await startReceiver();
    for (const key of ['a', 'b'] as const) {
      await pool.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, $2, 'pro')`, [accounts[key], key]);
      // Created now: the live path sends them nothing of the hour before, so whatever arrives is the replay's.
      await pool.query(`INSERT INTO webhooks (webhook_id, account_id, url, events) VALUES ($1, $2, $3, $4)`, [
        hooks[key],
        accounts[key],
        `${receiver.origin}/${key}`,
        ['link.created', 'link.updated', 'link.deleted', 'link.clicked'],
      ]);
      await pool.query(`INSERT INTO webhook_secrets (webhook_id, sealed) VALUES ($1, $2)`, [
        hooks[key],
        sealSecret(sealing, secrets[key]),
      ]);
    }
    await appendEvents(producer, names.topics.links, Object.values(events), (e) => e.data.slug);
    await producer.append(names.topics.clicks, [
      { key: linkA, value: encodeClickRecord([clicks.aOut[0]!, ...clicks.aIn.slice(0, 2)]) },
      { key: linkB, value: encodeClickRecord(clicks.bIn) },
      { key: linkA, value: encodeClickRecord([clicks.aIn[2]!, clicks.aOut[1]!]) },
    ]);
    // Two dispatchers at once: both poll for replays every 100 ms.
    await startDispatcher();
    await startDispatcher();
  }, 60_000);

  afterAll(async () => {
    for (const module of modules) await module.stop?.();
    await producer?.disconnect();
    await opened?.close();
    await receiver?.close();
    await pool?.end();
    await db?.drop();
  });

  async function replay(since: string, until: string, types: string[]): Promise<string> {
    const replayId = randomUUID();
    await pool.query(
      `INSERT INTO webhook_replays (replay_id, webhook_id, since, until, events) VALUES ($1, $2, $3, $4, $5)`,
      [replayId, hooks.a, since, until, types],
    );
    return replayId;
  }

  const finished = (replayId: string) =>
    eventually(
      async () => {
        const { rows } = await pool.query(`SELECT finished_at FROM webhook_replays WHERE replay_id = $1`, [replayId]);
        return rows[0]?.finished_at ? true : undefined;
      },
      60_000,
      'the replay finished',
    );
  const runsOf = (replayId: string) =>
    loggers.map((l) => l.infos.filter((i) => i.msg === 'webhook replay queued' && i.obj.replayId === replayId));

  it('delivers again exactly the window’s events of the account and types asked, with their ids and the replay header', async () => {
    const replayId = await replay(at(0), at(10), ['link.created', 'link.clicked']);
    await finished(replayId);
    const got = await eventually(
      async () => (receiver.received.length >= 2 ? receiver.received : undefined),
      30_000,
      'the replayed deliveries',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000)); // nothing more comes
    expect(got.map((r) => r.path)).toEqual(['/a', '/a']);
    for (const r of got) {
      expect(r.headers['webhook-replay']).toBe(replayId);
      expect(() => new Webhook(secrets.a).verify(r.body, r.headers)).not.toThrow();
    }
    const linkMessage = got.find((r) => JSON.parse(r.body).type === 'link.created')!;
    expect(linkMessage.headers['webhook-id']).toBe(`msg_${events.aIn.eventId}`);
    expect(JSON.parse(linkMessage.body).data.slug).toBe('a-in');
    const clickMessage = got.find((r) => JSON.parse(r.body).type === 'link.clicked')!;
    expect(JSON.parse(clickMessage.body).data.clicks.map((c: { eventId: string }) => c.eventId)).toEqual(
      clicks.aIn.map((c) => c.eventId),
    );
    // The attempts are logged as a replay's
    const { rows } = await pool.query(`SELECT replay FROM webhook_attempts WHERE webhook_id = $1`, [hooks.a]);
    expect(rows).toEqual([{ replay: true }, { replay: true }]);
    // One of the two dispatchers ran it, the other never did: the lease, not the index, kept it single
    expect(
      runsOf(replayId)
        .map((runs) => runs.length)
        .sort(),
    ).toEqual([0, 1]);
    expect(runsOf(replayId).flat()[0]!.obj.queued).toBe(2);
  }, 90_000);

  it('a replay run again while its messages wait queues nothing more: the index per replay absorbs it', async () => {
    // Given the endpoint disabled, so that the replay's messages stay queued
    await pool.query(`UPDATE webhooks SET enabled = false WHERE webhook_id = $1`, [hooks.a]);
    const before = receiver.received.length;
    const replayId = await replay(at(0), at(10), ['link.created', 'link.clicked']);
    await finished(replayId);
    // When it runs a second time (a run taken over after its lease ran out)
    await pool.query(`UPDATE webhook_replays SET finished_at = NULL WHERE replay_id = $1`, [replayId]);
    await finished(replayId);
    // Then the second run queued nothing: each message is queued once for this replay
    const queued = runsOf(replayId)
      .flat()
      .map((r) => Number(r.obj.queued));
    expect(queued.sort()).toEqual([0, 2]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE replay_id = $1`, [
      replayId,
    ]);
    expect(rows[0].n).toBe(2);
    // And once enabled again, each is sent once, marked with this replay
    await pool.query(`UPDATE webhooks SET enabled = true WHERE webhook_id = $1`, [hooks.a]);
    const got = await eventually(
      async () => (receiver.received.length >= before + 2 ? receiver.received.slice(before) : undefined),
      30_000,
      'the second replay delivered',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received.length).toBe(before + 2);
    expect(got.map((r) => r.headers['webhook-replay'])).toEqual([replayId, replayId]);
  }, 90_000);

  it('a replay of an empty window finishes with nothing sent', async () => {
    const before = receiver.received.length;
    const replayId = await replay('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z', ['link.created', 'link.clicked']);
    await finished(replayId);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(
      runsOf(replayId)
        .flat()
        .map((r) => r.obj.queued),
    ).toEqual([0]);
    expect(receiver.received.length).toBe(before);
  }, 90_000);
});

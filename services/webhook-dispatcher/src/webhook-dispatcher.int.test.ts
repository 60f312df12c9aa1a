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
  type LinkDeleted,
  type LinkUpdated,
} from '@shortlink/events';
import { appendEvents, kafkaNames, openKafka, type EventLogClient, type LogProducer } from '@shortlink/event-log';
import type { ServiceModule } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createScratchPostgres, eventually, infraEnv, uniqueSuffix, type ScratchDatabase } from '@shortlink/testing';
import { sealSecret } from '@shortlink/webhooks';
import { composeWebhookDispatcher, type WebhookDispatcherSettings } from './wiring';
import { RETRY_DELAYS_MS } from './retry-schedule';

const env = infraEnv(process.env);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  answeredAt?: number;
}

/**
 * The endpoints' side: `/ok/…` answers 204, `/flaky` 500 on each message's
 * first attempt then 204, `/slow` holds every request until released,
 * `/gone` answers 410. `/ok` takes 200 ms over link events, so that a link's
 * next event arriving before its previous one was answered shows.
 */
async function startReceiver() {
  const received: Received[] = [];
  const seen = new Set<string>();
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const path = req.url ?? '';
      const got: Received = { path, headers, body, at: Date.now() };
      received.push(got);
      res.on('finish', () => (got.answeredAt = Date.now()));
      const id = headers['webhook-id'] ?? '';
      if (path === '/slow') return void held.push(res);
      if (path === '/gone') return void res.writeHead(410).end('gone for good');
      if (path === '/flaky' && !seen.has(id)) {
        seen.add(id);
        return void res.writeHead(500).end('not now');
      }
      if (path === '/ok' && !body.includes('"link.clicked"'))
        return void setTimeout(() => res.writeHead(204).end(), 200);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    to: (path: string) => received.filter((r) => r.path === path),
    release: () => held.splice(0).forEach((res) => res.writeHead(204).end()),
    close: () =>
      new Promise<void>((resolve) => {
        held.splice(0).forEach((res) => res.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the webhook dispatcher (real Kafka and Postgres, a real receiver)', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let log: EventLogClient;
  let producer: LogProducer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const names = kafkaNames(`test-${uniqueSuffix()}.`);
  const accountId = randomUUID();
  const secrets = { old: newSecret(), current: newSecret(), others: newSecret() };
  const sealing = randomBytes(32);
  const hooks = { ok: randomUUID(), flaky: randomUUID(), slow: randomUUID(), gone: randomUUID() };
  const modules: ServiceModule[] = [];

  const settings: WebhookDispatcherSettings = {
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: true,
    WEBHOOKS_ALLOW_HTTP: true,
    // The key the write API sealed the secrets with: the dispatcher unseals them with it.
    WEBHOOKS_ENCRYPTION_KEY: sealing,
    WEBHOOKS_CONCURRENCY: 64,
    WEBHOOKS_PER_ENDPOINT_CONCURRENCY: 4,
    PUBLIC_BASE_URL: 'https://sho.rt',
    KAFKA_SESSION_TIMEOUT_MS: 10_000,
    WEBHOOKS_RETRY_SCHEDULE: [...RETRY_DELAYS_MS],
  };

  async function startDispatcher(): Promise<ServiceModule> {
    const module = composeWebhookDispatcher(
      settings,
      {
        kafka: log,
        names,
        pool,
        logger: quiet,
        metrics: createMetricsRegistry({ processMetrics: false }),
      },
      // The schedule's first retry falls 4 s after a failure (the lowest jitter).
      { batching: { maxItems: 100, maxWaitMs: 200 }, lookupTtlMs: 100, pollMs: 100, random: () => 0 },
    );
    await module.start!();
    modules.push(module);
    return module;
  }

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = await openDatabase({
      connectionString: db.url,
      max: 10,
      applicationName: 'dispatcher-int-test',
      migrationsDir: MIGRATIONS_DIR,
    });
    log = await openKafka({
      brokers: env.KAFKA_BROKERS.split(','),
      clientId: 'dispatcher-int-test',
      logger: quiet,
      names,
    });
    producer = log.producer();
    await producer.connect();
    receiver = await startReceiver();
    await pool.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, 'hooks', 'pro')`, [accountId]);
    const endpoints: [string, string, string[]][] = [
      [hooks.ok, '/ok', ['link.created', 'link.updated', 'link.deleted', 'link.clicked']],
      [hooks.flaky, '/flaky', ['link.created']],
      [hooks.slow, '/slow', ['link.created']],
      [hooks.gone, '/gone', ['link.created']],
    ];
    for (const [id, path, events] of endpoints) {
      await pool.query(
        `INSERT INTO webhooks (webhook_id, account_id, url, events, created_at) VALUES ($1, $2, $3, $4, now() - interval '1 minute')`,
        [id, accountId, receiver.origin + path, events],
      );
      // The endpoint at /ok is mid-rotation: the secret before signs beside the new one.
      const stored = id === hooks.ok ? [secrets.old, secrets.current] : [secrets.others];
      for (const [i, secret] of stored.entries()) {
        await pool.query(
          `INSERT INTO webhook_secrets (webhook_id, sealed, created_at, expires_at)
           VALUES ($1, $2, now() - make_interval(secs => $3), CASE WHEN $3 > 0 THEN now() + interval '1 day' END)`,
          [id, sealSecret(sealing, secret), stored.length - 1 - i],
        );
      }
    }
    await startDispatcher();
  });

  afterAll(async () => {
    for (const module of modules) await module.stop?.();
    await producer?.disconnect();
    await receiver?.close();
    await pool?.end();
    await db?.drop();
  });

  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  const linkId = randomUUID();
  const otherLinkId = randomUUID();
  const meta = (ms = 0) => ({ eventId: randomUUID(), occurredAt: at(ms) });

  it('delivers every event signed, a link’s in version order, clicks in batches, a slow endpoint holding no one else', async () => {
    const created = createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId, accountId, slug: 'hooked', destinationUrl: 'https://example.com/1', tag: null },
      meta(),
    );
    const updated = createEvent<LinkUpdated>(
      'LinkUpdated',
      1,
      {
        linkId,
        accountId,
        slug: 'hooked',
        version: 2,
        destinationUrl: 'https://example.com/2',
        tag: 't',
        changedFields: ['destinationUrl', 'tag'],
      },
      meta(1),
    );
    const deleted = createEvent<LinkDeleted>(
      'LinkDeleted',
      1,
      { linkId, accountId, slug: 'hooked', version: 3 },
      meta(2),
    );
    const other = createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId: otherLinkId, accountId, slug: 'other', destinationUrl: 'https://example.com/o', tag: null },
      meta(),
    );
    await appendEvents(producer, names.topics.links, [created, updated, deleted, other], (e) => e.data.slug);
    const clicks = Array.from({ length: 150 }, (_, i) =>
      createEvent<ClickRecorded>(
        'ClickRecorded',
        1,
        {
          linkId,
          accountId,
          slug: 'hooked',
          clickedAt: Date.now() + i,
          visitorHash: 'b'.repeat(64),
          referrer: 'Direct',
          country: 'DE',
          userAgent: 'curl/8',
        },
        meta(),
      ),
    );
    await producer.append(names.topics.clicks, [
      { key: linkId, value: encodeClickRecord(clicks.slice(0, 120)) },
      { key: linkId, value: encodeClickRecord(clicks.slice(120)) },
    ]);

    // The slow endpoint holds its requests; the others are served meanwhile
    await eventually(
      async () => (receiver.to('/slow').length >= 2 ? true : undefined),
      30_000,
      'the slow endpoint asked',
    );
    const okDone = await eventually(
      async () => {
        const got = receiver.to('/ok');
        const clicked = got.filter((r) => JSON.parse(r.body).type === 'link.clicked');
        const count = clicked.reduce((n, r) => n + JSON.parse(r.body).data.clicks.length, 0);
        return got.length - clicked.length === 4 && count === 150 ? got : undefined;
      },
      30_000,
      'every event at /ok',
    );
    expect(receiver.to('/slow').length).toBe(2); // still held: never answered, yet /ok has everything

    // Signed: either secret of the rotation verifies every delivery
    for (const r of okDone) {
      expect(() => new Webhook(secrets.old).verify(r.body, r.headers)).not.toThrow();
      expect(() => new Webhook(secrets.current).verify(r.body, r.headers)).not.toThrow();
      expect(() => new Webhook(secrets.others).verify(r.body, r.headers)).toThrow();
    }
    // One link's events in version order, each with its event's id
    const ofLink = okDone
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.type !== 'link.clicked' && b.data.id === linkId);
    // Each sent only once the one before it was answered
    const linkDeliveries = okDone.filter((r) => r.body.includes(linkId) && !r.body.includes('"link.clicked"'));
    for (let i = 1; i < linkDeliveries.length; i++) {
      expect(linkDeliveries[i]!.at).toBeGreaterThanOrEqual(linkDeliveries[i - 1]!.answeredAt!);
    }
    expect(ofLink.map((b) => [b.type, b.data.version])).toEqual([
      ['link.created', 1],
      ['link.updated', 2],
      ['link.deleted', 3],
    ]);
    expect(
      okDone.find((r) => JSON.parse(r.body).type === 'link.created' && JSON.parse(r.body).data.id === linkId)?.headers[
        'webhook-id'
      ],
    ).toBe(`msg_${created.eventId}`);
    // Clicks: at most 100 a message, every click once, no address in them
    const batches = okDone
      .filter((r) => JSON.parse(r.body).type === 'link.clicked')
      .map((r) => JSON.parse(r.body).data.clicks as { eventId: string }[]);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(100);
    expect(new Set(batches.flat().map((c) => c.eventId)).size).toBe(150);
    expect(Object.keys(batches[0]![0]!).sort()).toEqual([
      'clickedAt',
      'country',
      'domain',
      'eventId',
      'linkId',
      'referrer',
      'slug',
      'userAgent',
      'visitorHash',
    ]);
    receiver.release();
  });

  it('disables an endpoint that answers 410 at once, and says why', async () => {
    const row = await eventually(
      async () => {
        const { rows } = await pool.query(
          `SELECT enabled, disabled_reason, disabled_at FROM webhooks WHERE webhook_id = $1`,
          [hooks.gone],
        );
        return rows[0]?.enabled === false ? rows[0] : undefined;
      },
      30_000,
      'the 410 endpoint disabled',
    );
    expect(row).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    // Asked once for each message (both were in flight together) and never again; they stay queued for a re-enable
    await new Promise((resolve) => setTimeout(resolve, 500));
    const asked = receiver.to('/gone');
    expect(new Set(asked.map((r) => r.headers['webhook-id'])).size).toBe(asked.length);
    const { rows } = await pool.query(`SELECT response_status FROM webhook_attempts WHERE webhook_id = $1`, [
      hooks.gone,
    ]);
    expect(rows).toEqual(asked.map(() => ({ response_status: 410 })));
    const { rows: queued } = await pool.query(`SELECT attempts FROM webhook_deliveries WHERE webhook_id = $1`, [
      hooks.gone,
    ]);
    expect(queued).toEqual([{ attempts: 1 }, { attempts: 1 }]);
  });

  it('retries a failed delivery under the same webhook-id, and a restart loses no pending retry', async () => {
    // Given the flaky endpoint's first attempts failed
    await eventually(
      async () => (receiver.to('/flaky').length >= 2 ? true : undefined),
      30_000,
      'the first attempts at /flaky',
    );
    const { rows: pending } = await pool.query(
      `SELECT message_id, attempts FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY message_id`,
      [hooks.flaky],
    );
    expect(pending.map((r) => r.attempts)).toEqual([1, 1]);
    // When the dispatcher stops before their retries and another starts
    await modules.shift()!.stop!();
    await startDispatcher();
    // Then each is sent again, with the same id, and verified
    const retried = await eventually(
      async () => {
        const got = receiver.to('/flaky');
        return got.length >= 4 ? got : undefined;
      },
      30_000,
      'the retries at /flaky',
    );
    const ids = retried.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(2);
    expect(ids.slice(2).sort()).toEqual(ids.slice(0, 2).sort());
    for (const r of retried) expect(() => new Webhook(secrets.others).verify(r.body, r.headers)).not.toThrow();
    expect(retried[2]!.at - retried[0]!.at).toBeGreaterThanOrEqual(3900);
    await eventually(
      async () => {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [
          hooks.flaky,
        ]);
        return rows[0].n === 0 ? true : undefined;
      },
      10_000,
      'the queue of /flaky empty',
    );
    const { rows: log } = await pool.query(
      `SELECT attempt, response_status FROM webhook_attempts WHERE webhook_id = $1 ORDER BY attempt, attempt_id`,
      [hooks.flaky],
    );
    expect(log).toEqual([
      { attempt: 1, response_status: 500 },
      { attempt: 1, response_status: 500 },
      { attempt: 2, response_status: 204 },
      { attempt: 2, response_status: 204 },
    ]);
    const { rows: hook } = await pool.query(`SELECT failing_since, enabled FROM webhooks WHERE webhook_id = $1`, [
      hooks.flaky,
    ]);
    expect(hook[0]).toEqual({ failing_since: null, enabled: true });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { eventually, readReceived, startWebhookReceiver, type ReceivedDelivery } from '@shortlink/testing';
import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, ROOT, startProcess, type RunningProcess } from './support/processes';

/**
 * Webhooks as integrators meet them, with the built write API and dispatcher on real Postgres and Kafka and the
 * integrators' endpoints in a receiver process of their own: two accounts' endpoints side by side, one failing
 * 30 % of requests with 500, one answering slowly, one answering 410. The dispatcher is killed (SIGKILL)
 * mid-delivery and another takes over; then the receiver goes away for 60 s while the accounts keep changing
 * links, and comes back on the same port. Every event reaches its account's endpoints at least once, every copy
 * of a message carries the same `webhook-id` and body, every signature verifies with that endpoint's secret
 * only, and no account receives another's event.
 */
describe('webhook deliveries through a dispatcher kill and a receiver outage', () => {
  let infra: TestInfra;
  const running: RunningProcess[] = [];
  let writer: RunningProcess;
  let receiver: RunningProcess;
  let scratch: string;
  let logFile: string;
  const keys = { a: '', b: '' };
  const encryptionKey = randomBytes(32).toString('base64');
  const env = () => ({
    DATABASE_URL: infra.db.url,
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    PUBLIC_BASE_URL: 'https://sho.rt',
    // The receiver is on loopback, over plain http.
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_ENCRYPTION_KEY: encryptionKey,
    // Minutes and hours become seconds: tries through a 60 s outage, then enough more that a 30 % failure rate
    // after it cannot use them all up (0.3^14).
    WEBHOOKS_RETRY_SCHEDULE: ['1', '2', '5', '10', ...Array<string>(16).fill('15')].join(','),
  });
  const startDispatcher = async () => {
    const dispatcher = await startProcess('services/webhook-dispatcher/dist/main.js', env());
    running.push(dispatcher);
    return dispatcher;
  };
  const received = (): ReceivedDelivery[] => readReceived(logFile);
  /** The ids of the messages an endpoint answered 2xx to. */
  const delivered = (path: string) =>
    new Set(received().flatMap((r) => (r.path === path && r.status === 204 ? [r.headers['webhook-id']] : [])));

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    scratch = await mkdtemp(join(tmpdir(), 'webhook-receiver-'));
    logFile = join(scratch, 'received.ndjson');
    keys.a = await issueKey(infra.pool, 'pro');
    keys.b = await issueKey(infra.pool, 'pro');
    writer = await startProcess('services/write-api/dist/main.js', env());
    running.push(writer);
    receiver = await startWebhookReceiver({ root: ROOT, logFile, failRate: 0.3, slowMs: 1000 });
  }, 120_000);

  afterAll(async () => {
    for (const process of running) await process.kill();
    await receiver?.kill();
    await infra?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${writer.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>) };
  };

  /** Each account creates `count` links, changes each, and deletes every other one: 2.5 events a link. */
  const links = { a: [] as string[], b: [] as string[] };
  const changeLinks = (count: number, from: number) =>
    Promise.all(
      (['a', 'b'] as const).map(async (account) => {
        for (let i = from; i < from + count; i++) {
          const made = await api(keys[account], 'POST', '/api/v1/links', {
            url: `https://example.com/${account}/${i}`,
          });
          expect(made.status).toBe(201);
          links[account].push(String(made.body.id));
          const slug = String(made.body.slug);
          expect((await api(keys[account], 'PATCH', `/api/v1/links/${slug}`, { tag: 'changed' })).status).toBe(200);
          if (i % 2 === 0) expect((await api(keys[account], 'DELETE', `/api/v1/links/${slug}`)).status).toBe(204);
        }
      }),
    );

  it('delivers every event at least once, signed, to its own account only, through a kill -9 and an outage', async () => {
    // Given each account's endpoints: one failing 30 % of requests, a slow one, one gone for good
    const EVENTS = ['link.created', 'link.updated', 'link.deleted'];
    const endpoints = { a: '/a/flaky', aGone: '/a/gone', b: '/b/flaky', bSlow: '/b/slow' } as const;
    const secrets = new Map<string, string>();
    const ids = new Map<string, string>();
    for (const [name, path] of Object.entries(endpoints)) {
      const key = name.startsWith('a') ? keys.a : keys.b;
      const created = await api(key, 'POST', '/api/v1/webhooks', { url: receiver.url + path, events: EVENTS });
      expect(created.status).toBe(201);
      secrets.set(path, String(created.body.secret));
      ids.set(path, String(created.body.id));
    }
    let dispatcher = await startDispatcher();

    // When each account creates, changes and deletes links
    await changeLinks(30, 0);

    // And the dispatcher is killed while deliveries are under way, and another takes over
    await eventually(async () => (received().length >= 20 ? true : undefined), 60_000, 'deliveries begun');
    const answeredBeforeKill = delivered(endpoints.a).size + delivered(endpoints.b).size;
    await dispatcher.kill();
    expect(answeredBeforeKill).toBeLessThan(2 * 75);
    dispatcher = await startDispatcher();

    // And the receiver goes away for 60 s while the accounts keep changing links
    const port = Number(new URL(receiver.url).port);
    await receiver.kill();
    const outage = Date.now();
    await changeLinks(10, 30);
    await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() - outage)));
    receiver = await startWebhookReceiver({ root: ROOT, logFile, failRate: 0.3, slowMs: 1000, port });
    const expected = 40 * 2 + 40 / 2;

    // Then every event reaches each of its account's live endpoints
    await eventually(
      async () =>
        [endpoints.a, endpoints.b, endpoints.bSlow].every((path) => delivered(path).size === expected)
          ? true
          : undefined,
      180_000,
      'every event delivered',
    );
    const all = received();
    for (const [path, account] of [
      [endpoints.a, 'a'],
      [endpoints.aGone, 'a'],
      [endpoints.b, 'b'],
      [endpoints.bSlow, 'b'],
    ] as const) {
      const got = all.filter((r) => r.path === path);
      const other = secrets.get(account === 'a' ? endpoints.b : endpoints.a) as string;
      for (const r of got) {
        // Signed with this endpoint's secret, and not another account's
        expect(() => new Webhook(secrets.get(path) as string).verify(r.body, r.headers)).not.toThrow();
        expect(() => new Webhook(other).verify(r.body, r.headers)).toThrow();
        // Only this account's links
        expect(links[account]).toContain((JSON.parse(r.body) as { data: { id: string } }).data.id);
      }
      // Every copy of a message is the same message
      const bodyOf = new Map<string, string>();
      for (const r of got) {
        const id = r.headers['webhook-id'] as string;
        expect(bodyOf.get(id) ?? r.body).toBe(r.body);
        bodyOf.set(id, r.body);
      }
    }
    // Each link's events in version order at each endpoint
    for (const path of [endpoints.a, endpoints.b, endpoints.bSlow]) {
      const firstSeen = new Map<string, number[]>();
      for (const r of all.filter((x) => x.path === path && x.status === 204)) {
        const { data } = JSON.parse(r.body) as { data: { id: string; version: number } };
        const versions = firstSeen.get(data.id) ?? [];
        if (!versions.includes(data.version)) versions.push(data.version);
        firstSeen.set(data.id, versions);
      }
      for (const versions of firstSeen.values()) expect(versions).toEqual([...versions].sort((x, y) => x - y));
    }
    // The 410 endpoint was asked, then disabled at once, and the API says why
    const gone = await api(keys.a, 'GET', `/api/v1/webhooks/${ids.get(endpoints.aGone)}`);
    expect(gone.body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    // The retries of refused attempts went out under the same id
    const refused = all.filter((r) => r.status === 500).map((r) => r.headers['webhook-id']);
    expect(refused.length).toBeGreaterThan(0);
    for (const id of refused) expect(all.some((r) => r.headers['webhook-id'] === id && r.status === 204)).toBe(true);
    // And the attempts made while the receiver was away are in the API's log, as errors with no status
    const logged: { responseStatus: number | null; error: string | null }[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await api(keys.b, 'GET', `/api/v1/webhooks/${ids.get(endpoints.b)}/deliveries?limit=100${cursor}`);
      expect(page.status).toBe(200);
      logged.push(...(page.body.deliveries as typeof logged));
      const next = page.body.nextCursor as string | null;
      cursor = next === null ? null : `&cursor=${encodeURIComponent(next)}`;
    }
    expect(logged.some((a) => a.responseStatus === null && a.error !== null)).toBe(true);
    expect(logged.some((a) => a.responseStatus === 500)).toBe(true);
  }, 420_000);
});

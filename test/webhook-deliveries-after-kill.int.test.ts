import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@shortlink/testing';
import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Webhooks as integrators meet them, with the built write API and dispatcher on real Postgres and Kafka: two
 * accounts' endpoints side by side on one receiver that fails about 30 % of first attempts with 500, answers one
 * endpoint slowly and another with 410, while the dispatcher is killed (SIGKILL) mid-delivery and another takes
 * over. Every event reaches its account's endpoints at least once, every copy of a message carries the same
 * `webhook-id` and body, every signature verifies with that endpoint's secret only, and no account receives
 * another's event.
 */
describe('webhook deliveries when the dispatcher is killed mid-delivery', () => {
  let infra: TestInfra;
  const running: RunningProcess[] = [];
  let writer: RunningProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
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
  });
  const startDispatcher = async () => {
    const dispatcher = await startProcess('services/webhook-dispatcher/dist/main.js', env());
    running.push(dispatcher);
    return dispatcher;
  };

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    keys.a = await issueKey(infra.pool, 'pro');
    keys.b = await issueKey(infra.pool, 'pro');
    writer = await startProcess('services/write-api/dist/main.js', env());
    running.push(writer);
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    for (const process of running) await process.kill();
    await receiver?.close();
    await infra?.close();
  });

  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${writer.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>) };
  };

  it('delivers every event at least once, signed, to its own account only, through a kill -9', async () => {
    // Given each account's endpoints: one that fails 30 % of first attempts, a slow one, one gone for good
    const EVENTS = ['link.created', 'link.updated', 'link.deleted'];
    const endpoints = { a: '/a/flaky', aGone: '/a/gone', b: '/b/flaky', bSlow: '/b/slow' } as const;
    const secrets = new Map<string, string>();
    const ids = new Map<string, string>();
    for (const [name, path] of Object.entries(endpoints)) {
      const key = name.startsWith('a') ? keys.a : keys.b;
      const created = await api(key, 'POST', '/api/v1/webhooks', { url: receiver.origin + path, events: EVENTS });
      expect(created.status).toBe(201);
      secrets.set(path, String(created.body.secret));
      ids.set(path, String(created.body.id));
    }
    let dispatcher = await startDispatcher();

    // When each account creates, changes and deletes links
    const links = { a: [] as string[], b: [] as string[] };
    const LINKS = 30;
    await Promise.all(
      (['a', 'b'] as const).map(async (account) => {
        for (let i = 0; i < LINKS; i++) {
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
    const expected = LINKS * 2 + LINKS / 2;

    // And the dispatcher is killed while deliveries are under way, and another takes over
    await eventually(async () => (receiver.received.length >= 20 ? true : undefined), 60_000, 'deliveries begun');
    const answeredBeforeKill = receiver.delivered(endpoints.a).size + receiver.delivered(endpoints.b).size;
    await dispatcher.kill();
    expect(answeredBeforeKill).toBeLessThan(2 * expected);
    dispatcher = await startDispatcher();

    // Then every event reaches each of its account's live endpoints (the killed one's leases run out first)
    await eventually(
      async () =>
        [endpoints.a, endpoints.b, endpoints.bSlow].every((path) => receiver.delivered(path).size === expected)
          ? true
          : undefined,
      150_000,
      'every event delivered',
    );
    for (const [path, account] of [
      [endpoints.a, 'a'],
      [endpoints.aGone, 'a'],
      [endpoints.b, 'b'],
      [endpoints.bSlow, 'b'],
    ] as const) {
      const got = receiver.received.filter((r) => r.path === path);
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
      for (const r of receiver.received.filter((x) => x.path === path && x.status === 204)) {
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
    // And the retries of failed first attempts went out under the same id
    const retried = receiver.received.filter((r) => r.status === 500).map((r) => r.headers['webhook-id']);
    expect(retried.length).toBeGreaterThan(0);
    for (const id of retried)
      expect(receiver.received.some((r) => r.headers['webhook-id'] === id && r.status === 204)).toBe(true);
  }, 300_000);
});

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  status: number;
}

/**
 * The integrators' side, on one HTTP server: `/…/flaky` answers 500 to the first attempt of about 30 % of
 * messages (chosen by their id) and 204 after; `/b/slow` takes a second; `/a/gone` answers 410.
 */
async function startReceiver() {
  const received: Received[] = [];
  const attempted = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const path = req.url ?? '';
      const id = headers['webhook-id'] ?? '';
      const answer = (status: number) => {
        received.push({ path, headers, body, status });
        res.writeHead(status).end();
      };
      if (path.endsWith('/gone')) return answer(410);
      if (path.endsWith('/slow')) return void setTimeout(() => answer(204), 1000);
      const first = !attempted.has(`${path} ${id}`);
      attempted.add(`${path} ${id}`);
      const unlucky = (createHash('sha256').update(id).digest()[0] as number) < 0.3 * 256;
      answer(first && unlucky ? 500 : 204);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    /** The ids of the messages an endpoint answered 2xx to. */
    delivered: (path: string) =>
      new Set(received.filter((r) => r.path === path && r.status === 204).map((r) => r.headers['webhook-id'])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

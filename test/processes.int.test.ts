import { randomUUID } from 'node:crypto';
import { decodeClickRecord } from '@shortlink/events';
import { eventually } from '@shortlink/testing';
import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/**
 * The write API and the redirector as separate processes from their own entry
 * points, as a fleet runs them: no shared memory, only Postgres and Kafka.
 */
describe('separate processes', () => {
  let infra: TestInfra;
  let writeApi: RunningProcess;
  let redirector: RunningProcess;
  let key: string;

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    key = await issueKey(infra.pool, 'pro');
    const common = {
      DATABASE_URL: infra.db.url,
      KAFKA_BROKERS: infra.brokers.join(','),
      KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    };
    [writeApi, redirector] = await Promise.all([
      startProcess('services/write-api/dist/main.js', { ...common, PUBLIC_BASE_URL: 'https://sho.rt' }),
      startProcess('services/redirector/dist/main.js', common),
    ]);
  });

  afterAll(async () => {
    const codes = await Promise.all([writeApi?.stop(), redirector?.stop()]);
    await infra?.close();
    // A graceful stop on SIGTERM exits 0.
    expect(codes).toEqual([0, 0]);
  });

  it('redirects on the next request after a 201 from another process', async () => {
    // Chains side by side, so the redirector's notification connection is busy
    // while a 201 is already on its way back: the race read-your-writes must win.
    const chain = async (c: number) => {
      for (let i = 0; i < 10; i++) {
        const slug = `proc-${c}-${i}`;
        // Looked up first, so the redirector holds a cached "not found" for it.
        expect((await fetch(`${redirector.url}/${slug}`, { redirect: 'manual' })).status).toBe(404);
        const created = await fetch(`${writeApi.url}/api/v1/links`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://example.com/p/${c}/${i}`, customSlug: slug }),
        });
        expect(created.status).toBe(201);
        const res = await fetch(`${redirector.url}/${slug}`, { redirect: 'manual' });
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe(`https://example.com/p/${c}/${i}`);
      }
    };
    await Promise.all(Array.from({ length: 20 }, (_, c) => chain(c)));
  });

  it('keeps every click it answered when told twice to stop under load, and exits 0', async () => {
    // Given a redirector draining for 1 s on a signal, and 20 browsers' keep-alive connections on a link
    const slug = 'proc-twice';
    const created = await fetch(`${writeApi.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/twice', customSlug: slug }),
    });
    expect(created.status).toBe(201);
    const { id: linkId } = (await created.json()) as { id: string };
    const stopping = await startProcess('services/redirector/dist/main.js', {
      DATABASE_URL: infra.db.url,
      KAFKA_BROKERS: infra.brokers.join(','),
      KAFKA_TOPIC_PREFIX: infra.topicPrefix,
      SHUTDOWN_DRAIN_MS: '1000',
    });
    let redirected = 0;
    const browser = async () => {
      for (;;) {
        try {
          const res = await fetch(`${stopping.url}/${slug}`, { redirect: 'manual', headers: { 'user-agent': CHROME } });
          await res.arrayBuffer();
          if (res.status === 302) redirected++;
        } catch {
          return; // the port closed
        }
      }
    };
    const browsers = Promise.all(Array.from({ length: 20 }, browser));
    await eventually(async () => (redirected >= 500 ? true : undefined));

    // When it gets SIGTERM, and another one 300 ms later (Ctrl-C under `npm start` sends two)
    process.kill(stopping.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const code = await stopping.stop();
    await browsers;

    // Then it exits 0, and every redirect it answered is a click on the topic, once
    expect(code).toBe(0);
    const clicks = new Set<string>();
    const consumer = infra.kafka.consumer({ groupId: `reader-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: infra.names.topics.clicks, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        for (const { result } of decodeClickRecord(message.value)) {
          if (result.ok && result.event.data.linkId === linkId) clicks.add(result.event.eventId);
        }
      },
    });
    try {
      await eventually(async () => (clicks.size >= redirected ? true : undefined), 30_000, `${redirected} clicks`);
    } finally {
      await consumer.disconnect();
    }
    expect(clicks.size).toBe(redirected);
  }, 60_000);

  it('answers the same contract over real HTTP', async () => {
    const unauthorized = await fetch(`${writeApi.url}/api/v1/links`, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
    expect(await unauthorized.json()).toMatchObject({ error: 'Unauthorized', code: 'unauthorized' });
  });
});

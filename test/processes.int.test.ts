import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

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

  it('answers the same contract over real HTTP', async () => {
    const unauthorized = await fetch(`${writeApi.url}/api/v1/links`, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
    expect(await unauthorized.json()).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
  });
});

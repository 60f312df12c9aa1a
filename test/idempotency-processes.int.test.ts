import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Two write-API processes from their own entry point, as a fleet runs them:
 * they share nothing but Postgres and Kafka, so an Idempotency-Key must hold
 * across them, and across a restart.
 */
describe('Idempotency-Key across write-API processes', () => {
  let infra: TestInfra;
  let writers: RunningProcess[];
  let key: string;
  const env = () => ({
    DATABASE_URL: infra.db.url,
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    PUBLIC_BASE_URL: 'https://sho.rt',
  });
  const startWriter = () => startProcess('services/write-api/dist/main.js', env());

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    key = await issueKey(infra.pool, 'pro');
    writers = await Promise.all([startWriter(), startWriter()]);
  }, 90_000);

  afterAll(async () => {
    const codes = await Promise.all(writers.map((w) => w?.stop()));
    await infra?.close();
    expect(codes).toEqual([0, 0]);
  });

  const send = (writer: RunningProcess, path: string, body: unknown, idempotencyKey: string) =>
    fetch(`${writer.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });

  async function claimsFor(prefix: string): Promise<number> {
    const { rows } = await infra.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM slug_claims WHERE destination_url LIKE $1 || '%'`,
      [prefix],
    );
    return Number(rows[0]!.n);
  }

  it('gives 50 concurrent retries spread over two processes exactly one link and one response', async () => {
    const body = { url: 'https://example.com/procs/one', tag: 'two-processes' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(writers[i % 2]!, '/api/v1/links', body, 'spread-key')),
    );
    const answers = await Promise.all(responses.map(async (r) => `${r.status} ${await r.text()}`));
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/^201 /);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await claimsFor('https://example.com/procs/one')).toBe(1);
  });

  it('does the same for bulk creates, and refuses another body under the key in either process', async () => {
    const body = { links: Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/procs/bulk/${i}` })) };
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => send(writers[i % 2]!, '/api/v1/links/bulk', body, 'bulk-spread')),
    );
    const answers = await Promise.all(responses.map(async (r) => `${r.status} ${await r.text()}`));
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/^200 /);
    expect(await claimsFor('https://example.com/procs/bulk/')).toBe(20);
    for (const writer of writers) {
      const other = await send(writer, '/api/v1/links/bulk', { links: body.links.slice(1) }, 'bulk-spread');
      expect(other.status).toBe(422);
    }
  });

  it('keeps the first response across a restart of the process that gave it', async () => {
    const body = { url: 'https://example.com/procs/restart' };
    const first = await send(writers[0]!, '/api/v1/links', body, 'restart-key');
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    expect(await writers[0]!.stop()).toBe(0);
    writers[0] = await startWriter();
    for (const writer of writers) {
      const again = await send(writer, '/api/v1/links', body, 'restart-key');
      expect(again.status).toBe(201);
      expect(await again.text()).toBe(firstBody);
    }
    expect(await claimsFor('https://example.com/procs/restart')).toBe(1);
  }, 60_000);
});

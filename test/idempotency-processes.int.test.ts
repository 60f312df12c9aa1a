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

  /**
   * What a process killed after its work and before it stored its answer
   * leaves (a kill -9 under load can): the key in progress and its
   * lease run out, its link made, or its slug claimed and not yet committed.
   * Made here from a real create: its stored answer taken away, the key dated
   * two minutes back, and the claim set back to pending if asked.
   */
  async function holderDied(idempotencyKey: string, linkIds: string[], claim: 'committed' | 'pending') {
    await infra.pool.query(
      `UPDATE idempotency_keys SET response_status = NULL, response_headers = NULL, response_body = NULL,
              created_at = now() - interval '2 minutes'
        WHERE idempotency_key = $1`,
      [idempotencyKey],
    );
    if (claim === 'pending') {
      await infra.pool.query(`UPDATE slug_claims SET state = 'pending' WHERE link_id = ANY($1::uuid[])`, [linkIds]);
    }
  }

  it.each([
    ['a generated slug', 'generated', {}, 'committed'],
    ['a custom slug', 'custom', { customSlug: 'procs-died' }, 'committed'],
    ['a claim its holder had not committed', 'pending', {}, 'pending'],
  ] as const)(
    'answers a retry whose key’s holder died with that holder’s link (%s), never a second link or “taken”',
    async (_, name, extra, claim) => {
      const body = { url: `https://example.com/procs/died-${name}`, ...extra };
      const first = await send(writers[0]!, '/api/v1/links', body, `died-${name}`);
      expect(first.status).toBe(201);
      const link = (await first.json()) as { id: string };
      await holderDied(`died-${name}`, [link.id], claim);

      const retry = await send(writers[1]!, '/api/v1/links', body, `died-${name}`);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(await retry.json()).toEqual(link);
      expect(await claimsFor(body.url)).toBe(1);
      const { rows } = await infra.pool.query('SELECT state FROM slug_claims WHERE link_id = $1', [link.id]);
      expect(rows).toEqual([{ state: 'committed' }]);
      // And the key keeps that answer from now on.
      const replay = await send(writers[0]!, '/api/v1/links', body, `died-${name}`);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(link);
    },
  );

  it('answers a retry waiting on a held key at once when its process is told to stop, and the process exits cleanly', async () => {
    // Given a key another process holds (its lease still running) and a retry waiting on it in a third process
    const body = { url: 'https://example.com/procs/held-at-stop' };
    expect((await send(writers[0]!, '/api/v1/links', body, 'held-at-stop')).status).toBe(201);
    await infra.pool.query(
      `UPDATE idempotency_keys SET response_status = NULL, response_headers = NULL, response_body = NULL
        WHERE idempotency_key = 'held-at-stop'`,
    );
    const stopping = await startWriter();
    const retry = send(stopping, '/api/v1/links', body, 'held-at-stop');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // When that process gets SIGTERM
    const signalled = Date.now();
    const exited = stopping.stop();
    // Then the retry is told to come back (to another process) without waiting out its 10 s, and the process exits 0
    const answer = await retry;
    const answeredAfter = Date.now() - signalled;
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([409, '1']);
    expect(await answer.json()).toMatchObject({ code: 'idempotency_key_in_progress' });
    expect(answeredAfter).toBeLessThan(5_000); // a retry waits 10 s for a held key otherwise
    expect(await exited).toBe(0);
  });

  it('does the same for a bulk create', async () => {
    const body = {
      links: [
        { url: 'https://example.com/procs/bulk-died/0' },
        { url: 'https://example.com/procs/bulk-died/1', customSlug: 'procs-bulk-died' },
      ],
    };
    const first = await send(writers[0]!, '/api/v1/links/bulk', body, 'bulk-died');
    expect(first.status).toBe(200);
    const results = (await first.json()) as { results: { status: number; link: { id: string } }[] };
    expect(results.results.map((r) => r.status)).toEqual([201, 201]);
    await holderDied(
      'bulk-died',
      results.results.map((r) => r.link.id),
      'pending',
    );

    const retry = await send(writers[1]!, '/api/v1/links/bulk', body, 'bulk-died');
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual(results);
    expect(await claimsFor('https://example.com/procs/bulk-died/')).toBe(2);
  });
});

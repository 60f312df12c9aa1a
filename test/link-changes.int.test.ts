import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { CHANNELS, parsePayloadPair, releaseRedirectorLease, renewRedirectorLease } from '@shortlink/postgres';
import { decodeEvent, linkEvent, type LinkEvent } from '@shortlink/events';
import { eventually } from '@shortlink/testing';
import { issueKey, openTestInfra, redirectorsLeased, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Update and delete through real HTTP, with the write API and two
 * redirectors as separate processes from their own entry points (as a fleet
 * runs them: no shared memory, only Postgres and Kafka), under concurrent
 * redirect traffic: the very next redirect after a 200 (PATCH) goes to the
 * new destination, and after a 204 (DELETE) answers 404, in both redirectors.
 */
describe('link changes across processes', () => {
  let infra: TestInfra;
  let writeApi: RunningProcess;
  /** A second write API on the same stores: two processes changing one link at once. */
  let secondWriteApi: RunningProcess;
  let redirectors: RunningProcess[];
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    [key, otherKey] = await Promise.all([issueKey(infra.pool, 'pro'), issueKey(infra.pool, 'pro')]);
    const common = {
      DATABASE_URL: infra.db.url,
      KAFKA_BROKERS: infra.brokers.join(','),
      KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    };
    const started = await Promise.all([
      startProcess('services/write-api/dist/main.js', { ...common, PUBLIC_BASE_URL: 'https://sho.rt' }),
      startProcess('services/write-api/dist/main.js', { ...common, PUBLIC_BASE_URL: 'https://sho.rt' }),
      startProcess('services/redirector/dist/main.js', common),
      startProcess('services/redirector/dist/main.js', common),
    ]);
    [writeApi, secondWriteApi] = started;
    redirectors = started.slice(2);
    // Both redirectors hold their lease before the first change.
    await redirectorsLeased(infra.pool, 2);
  }, 120_000);

  afterAll(async () => {
    const codes = await Promise.all([
      writeApi?.stop(),
      secondWriteApi?.stop(),
      ...(redirectors ?? []).map((r) => r.stop()),
    ]);
    await infra?.close();
    expect(codes).toEqual([0, 0, 0, 0]);
  });

  const api = (method: string, path: string, body?: unknown, as = key, via = writeApi) =>
    fetch(`${via.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** Changes the first write API answered after a wait for the redirectors that ended so (its /metrics). */
  const waitsOf = async (outcome: string) => {
    const text = await (await fetch(`${writeApi.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`shortlink_link_change_redirector_wait_seconds_count{outcome="${outcome}"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  };
  const visit = async (redirector: RunningProcess, slug: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${redirector.url}/${slug}`, { redirect: 'manual', headers });
    return { status: res.status, location: res.headers.get('location') };
  };

  /**
   * The first `count` events of a link on the links topic, in the order they are there, read as a
   * data team reads them: a repeat of an event already read is dropped by its id (a change whose
   * append timed out stays in the outbox and is appended again, as docs/integrators.md says it may be).
   */
  async function eventsOf(slug: string, count: number): Promise<LinkEvent[]> {
    const seen: LinkEvent[] = [];
    const ids = new Set<string>();
    const consumer = infra.kafka.consumer({ groupId: `${infra.topicPrefix}reader-${slug}-${Date.now()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: infra.names.topics.links, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== slug) return;
        const decoded = decodeEvent(linkEvent, message.value);
        if (decoded.ok && !ids.has(decoded.event.eventId)) {
          ids.add(decoded.event.eventId);
          seen.push(decoded.event);
        }
      },
    });
    try {
      await eventually(async () => (seen.length >= count ? true : undefined));
    } finally {
      await consumer.disconnect();
    }
    return seen.slice(0, count);
  }

  it('sends the very next redirect in every redirector to the new destination, then 404s it once deleted', async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `chg-${i}`);
    for (const slug of slugs) {
      expect(
        (await api('POST', '/api/v1/links', { url: `https://example.com/${slug}/v1`, customSlug: slug })).status,
      ).toBe(201);
    }

    /*
     * Each slug goes through v1 … v4, then deleted (state 5). A request that
     * starts after state n was acknowledged must answer n or a later state
     * (the next change may be under way), never an earlier one.
     */
    const acknowledged = new Map<string, { since: number; state: number }>();
    const stateOf = (got: { status: number; location: string | null }) =>
      got.status === 404 ? 5 : Number(/\/v(\d)$/.exec(got.location ?? '')?.[1] ?? 0);
    const violations: string[] = [];
    let stop = false;
    let background = 0;
    // Steady traffic on both redirectors meanwhile: warm caches, busy event loops and listening connections.
    const traffic = redirectors.flatMap((r, ri) =>
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = w; !stop; i++) {
          const slug = slugs[i % slugs.length] as string;
          const startedAt = performance.now();
          const floor = acknowledged.get(slug);
          const got = await visit(r, slug);
          background++;
          if (floor && startedAt > floor.since && stateOf(got) < floor.state) {
            violations.push(`redirector ${ri} ${slug}: ${got.status} ${got.location} after state ${floor.state}`);
          }
        }
      }),
    );

    for (const r of redirectors) for (const slug of slugs) expect((await visit(r, slug)).status).toBe(302);

    await Promise.all(
      slugs.map(async (slug) => {
        for (let v = 2; v <= 4; v++) {
          const url = `https://example.com/${slug}/v${v}`;
          const res = await api('PATCH', `/api/v1/links/${slug}`, { url, tag: `t${v}` });
          expect(res.status).toBe(200);
          expect(await res.json()).toMatchObject({ slug, destinationUrl: url, tag: `t${v}` });
          acknowledged.set(slug, { since: performance.now(), state: v });
          for (const r of redirectors) expect(await visit(r, slug)).toEqual({ status: 302, location: url });
        }
        expect((await api('DELETE', `/api/v1/links/${slug}`)).status).toBe(204);
        acknowledged.set(slug, { since: performance.now(), state: 5 });
        for (const r of redirectors) expect((await visit(r, slug)).status).toBe(404);
      }),
    );

    stop = true;
    await Promise.all(traffic);
    expect(violations).toEqual([]);
    expect(background).toBeGreaterThan(100);
  });

  it('sends the very next redirect in every redirector by the rules a PATCH set, and by none once they are cleared', async () => {
    const slug = 'chg-rules';
    const mobile = {
      'user-agent':
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
    };
    expect((await api('POST', '/api/v1/links', { url: 'https://example.com/r0', customSlug: slug })).status).toBe(201);
    // Warm: each redirector holds the link without routing.
    for (const r of redirectors)
      expect(await visit(r, slug, mobile)).toEqual({ status: 302, location: 'https://example.com/r0' });
    const rules = [{ when: { device: ['mobile'] }, destinationUrl: 'https://example.com/r0/app' }];
    expect((await api('PATCH', `/api/v1/links/${slug}`, { rules })).status).toBe(200);
    for (const r of redirectors) {
      expect(await visit(r, slug, mobile)).toEqual({ status: 302, location: 'https://example.com/r0/app' });
      expect(await visit(r, slug)).toEqual({ status: 302, location: 'https://example.com/r0' });
    }
    const variants = [
      { destinationUrl: 'https://example.com/r0/a', weight: 1 },
      { destinationUrl: 'https://example.com/r0/b', weight: 99 },
    ];
    expect((await api('PATCH', `/api/v1/links/${slug}`, { rules: [], variants })).status).toBe(200);
    for (const r of redirectors) {
      expect(['https://example.com/r0/a', 'https://example.com/r0/b']).toContain(
        (await visit(r, slug, mobile)).location,
      );
    }
    expect((await api('PATCH', `/api/v1/links/${slug}`, { variants: null })).status).toBe(200);
    for (const r of redirectors)
      expect(await visit(r, slug, mobile)).toEqual({ status: 302, location: 'https://example.com/r0' });
  });

  it('appends LinkUpdated and LinkDeleted to the links topic, keyed by slug, in version order', async () => {
    const slug = 'chg-events';
    await api('POST', '/api/v1/links', { url: 'https://example.com/e1', customSlug: slug, tag: 'a' });
    expect((await api('PATCH', `/api/v1/links/${slug}`, { tag: null })).status).toBe(200);
    expect((await api('DELETE', `/api/v1/links/${slug}`)).status).toBe(204);

    expect(await eventsOf(slug, 3)).toMatchObject([
      { type: 'LinkCreated', data: { slug, tag: 'a' } },
      {
        type: 'LinkUpdated',
        data: { slug, version: 2, tag: null, destinationUrl: 'https://example.com/e1', changedFields: ['tag'] },
      },
      { type: 'LinkDeleted', data: { slug, version: 3 } },
    ]);
  });

  it('appends a link’s changes in version order when two processes change it at once', async () => {
    // Given a link, and 40 changes of it sent at once, half through each write API
    const slug = 'chg-concurrent';
    expect((await api('POST', '/api/v1/links', { url: 'https://example.com/c0', customSlug: slug })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api('PATCH', `/api/v1/links/${slug}`, { tag: `t${i}` }, key, i % 2 === 0 ? writeApi : secondWriteApi),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    // When the topic is read, as a data team reads it
    const updates = (await eventsOf(slug, 41)).slice(1);
    // Then each change is there once, in the order of its version
    expect(updates.map((event) => event.type === 'LinkUpdated' && event.data.version)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 2),
    );
  });

  it('answers another account 404, exactly like a missing link, and changes nothing', async () => {
    const slug = 'chg-owned';
    await api('POST', '/api/v1/links', { url: 'https://example.com/mine', customSlug: slug });
    const patch = await api('PATCH', `/api/v1/links/${slug}`, { url: 'https://evil.example' }, otherKey);
    const missing = await api('PATCH', '/api/v1/links/chg-nothing', { url: 'https://evil.example' }, otherKey);
    expect(patch.status).toBe(404);
    // The same body, but for the slug asked for, which the detail names.
    const body = JSON.stringify(await patch.json()).replace(slug, '{slug}');
    expect(body).toBe(JSON.stringify(await missing.json()).replace('chg-nothing', '{slug}'));
    expect((await api('DELETE', `/api/v1/links/${slug}`, undefined, otherKey)).status).toBe(404);
    for (const r of redirectors)
      expect(await visit(r, slug)).toEqual({ status: 302, location: 'https://example.com/mine' });
  });

  it('answers a change only once every leased redirector confirmed it, or its lease ran out', async () => {
    const slug = 'chg-wait';
    await api('POST', '/api/v1/links', { url: 'https://example.com/w1', customSlug: slug });
    // A third redirector, slow to apply changes: it listens and holds a lease as the real ones do.
    const slow = new Client({ connectionString: infra.db.url });
    await slow.connect();
    await slow.query(`LISTEN ${CHANNELS.linkChanged}`);
    const listenerId = randomUUID();
    // Long enough that only its confirmation, never its lapse, can let the answer go on a slow machine.
    await renewRedirectorLease(slow, listenerId, 30_000);
    const order: string[] = [];
    const confirmLater = (msg: { payload?: string }) => {
      const changeId = parsePayloadPair(msg.payload)?.[0];
      setTimeout(() => {
        order.push('confirmed');
        void slow.query('SELECT pg_notify($1, $2)', [CHANNELS.linkChangeApplied, `${listenerId} ${changeId}`]);
      }, 300);
    };
    try {
      slow.on('notification', confirmLater);
      expect((await api('PATCH', `/api/v1/links/${slug}`, { url: 'https://example.com/w2' })).status).toBe(200);
      order.push('answered');
      expect(order).toEqual(['confirmed', 'answered']);

      // Leased but silent (frozen, or cut off): the answer waits until its lease has run out.
      slow.off('notification', confirmLater);
      await renewRedirectorLease(slow, listenerId, 2000);
      const lapsedBefore = await waitsOf('lapsed');
      expect((await api('DELETE', `/api/v1/links/${slug}`)).status).toBe(204);
      const { rows } = await infra.pool.query<{ lapsed: boolean }>(
        'SELECT expires_at <= now() AS lapsed FROM redirector_leases WHERE listener_id = $1',
        [listenerId],
      );
      expect(rows[0]?.lapsed).toBe(true);
      // And the write API says so to its operators: one more change that waited for a lease to run out
      expect(await waitsOf('lapsed')).toBe(lapsedBefore + 1);
    } finally {
      await releaseRedirectorLease(slow, listenerId);
      await slow.end();
    }
  });
});

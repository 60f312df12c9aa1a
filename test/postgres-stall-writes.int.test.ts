import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * Writes while Postgres stalls (connections open, nothing answered): the write API as its own process, its Postgres
 * behind a proxy that passes no byte while frozen; Kafka and the test's own view of Postgres direct. Every write must
 * be answered while Postgres is still stalled, saying only what is known: "nothing was done" only of what was not done,
 * "may or may not have been saved" of a change whose COMMIT went unanswered.
 */
let infra: TestInfra;
let proxy: TcpProxy;
let writeApi: RunningProcess;
const keys: Record<'a' | 'b', string> = { a: '', b: '' };

/** Far beyond any bound of the write API's own: a request not answered by then waited on the stall. */
const GIVE_UP_MS = 20_000;
const UNAVAILABLE = {
  error: 'The service is temporarily unavailable. Try again in a moment.',
  code: 'temporarily_unavailable',
  detail: 'A store this request needs did not answer in time.',
};
const UNCONFIRMED = {
  error:
    'The database did not confirm the change in time: it may or may not have been saved. Sending the same change again is safe.',
  code: 'temporarily_unavailable',
  detail: 'Postgres took the change but did not answer its commit in time.',
};
/** What the claim's commit statement holds (commitSlugClaims): the step after a create's append. */
const CLAIM_COMMIT = Buffer.from("UPDATE slug_claims AS s SET state = 'committed'");
/** pg's simple-query message for COMMIT: what a transaction sends last. */
const COMMIT_MESSAGE = Buffer.from([0x51, 0, 0, 0, 11, ...Buffer.from('COMMIT\0')]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(
  account: 'a' | 'b',
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> | null }> {
  const res = await fetch(`${writeApi.url}${path}`, {
    method,
    signal: AbortSignal.timeout(GIVE_UP_MS),
    headers: {
      authorization: `Bearer ${keys[account]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
  };
}

async function create(account: 'a' | 'b', url: string): Promise<string> {
  const res = await call(account, 'POST', '/api/v1/links', { url });
  expect(res.status).toBe(201);
  return res.body?.slug as string;
}

/** Events on the links topic, all partitions: what the write API appended. */
async function linkEvents(): Promise<number> {
  const admin = infra.kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(infra.names.topics.links);
    return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

async function claimOf(slug: string) {
  const { rows } = await infra.pool.query<{
    destination_url: string;
    deleted_at: Date | null;
    account_id: string;
    state: string;
  }>('SELECT destination_url, deleted_at, account_id, state FROM slug_claims WHERE slug = $1', [slug]);
  return rows[0];
}

beforeAll(async () => {
  buildOnce();
  infra = await openTestInfra();
  [keys.a, keys.b] = await Promise.all([issueKey(infra.pool, 'pro'), issueKey(infra.pool, 'pro')]);
  proxy = await startTcpProxy(Number(new URL(infra.db.url).port || 5432));
  const url = new URL(infra.db.url);
  url.port = String(proxy.port);
  writeApi = await startProcess('services/write-api/dist/main.js', {
    DATABASE_URL: url.toString(),
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    PUBLIC_BASE_URL: 'https://sho.rt',
  });
}, 60_000);

afterAll(async () => {
  proxy?.thaw();
  await writeApi?.stop();
  await proxy?.close();
  await infra?.close();
});

describe('the write API while Postgres stalls', () => {
  it('answers every write 503 while Postgres is frozen, does none of them, and does each once when sent again', async () => {
    // Given two accounts, each with a link to change and one to delete (their keys known to the process)
    const links = {
      a: { change: await create('a', 'https://example.com/a-1'), remove: await create('a', 'https://example.com/a-2') },
      b: { change: await create('b', 'https://example.com/b-1'), remove: await create('b', 'https://example.com/b-2') },
    };
    // And every connection of the process's pool open: 20 keyed creates at once each take one for their key.
    // (A stall on an open connection is what nothing else bounds; a new one gives up after 5 s on its own.)
    const warmUp = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 === 0 ? 'a' : 'b', 'POST', '/api/v1/links', { url: `https://example.com/warm-${i}` }, `warm-${i}`),
      ),
    );
    expect(warmUp.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 201));
    const before = await linkEvents();
    const writes = (account: 'a' | 'b') => {
      const other = account === 'a' ? 'b' : 'a';
      return [
        // A custom slug without a key: its claim, landing once Postgres wakes, must not keep it taken.
        [
          'POST',
          '/api/v1/links',
          { url: `https://example.com/${account}-plain`, customSlug: `stall-${account}-plain` },
          undefined,
        ],
        [
          'POST',
          '/api/v1/links',
          { url: `https://example.com/${account}-keyed`, customSlug: `stall-${account}-keyed` },
          `create-${account}`,
        ],
        // Without a key, so its item meets the stall (a key's own step would answer the whole request).
        ['POST', '/api/v1/links/bulk', { links: [{ url: `https://example.com/${account}-bulk` }] }, undefined],
        ['PATCH', `/api/v1/links/${links[account].change}`, { url: `https://example.com/${account}-new` }, undefined],
        ['DELETE', `/api/v1/links/${links[account].remove}`, undefined, `delete-${account}`],
        // Another account's link: unknown while frozen, 404 after.
        ['PATCH', `/api/v1/links/${links[other].change}`, { url: 'https://example.com/intruder' }, undefined],
      ] as const;
    };

    // When Postgres stalls and both accounts write at once
    proxy.freeze();
    const answers = await Promise.all(
      (['a', 'b'] as const).flatMap((account) =>
        writes(account).map(([method, path, body, key]) => call(account, method, path, body, key)),
      ),
    );

    // Then every write was answered while Postgres was still frozen, as unavailable (a bulk item by item)
    for (const answer of answers) {
      expect(answer.status === 200 ? answer.body : answer).toEqual(
        answer.status === 200
          ? { results: [{ status: 503, ...UNAVAILABLE }] }
          : { status: 503, retryAfter: expect.any(String), body: UNAVAILABLE },
      );
    }
    // And once Postgres wakes (the statements it held run then), none of them was done
    proxy.thaw();
    await sleep(2000);
    expect(await linkEvents()).toBe(before);
    for (const account of ['a', 'b'] as const) {
      expect(await claimOf(links[account].change)).toMatchObject({
        destination_url: `https://example.com/${account}-1`,
      });
      expect(await claimOf(links[account].remove)).toMatchObject({ deleted_at: null });
    }

    // And sent again, each write is done once, each account's on its own links only
    for (const account of ['a', 'b'] as const) {
      const [plain, keyed, bulk, change, remove, intrusion] = writes(account);
      type Write = readonly [string, string, unknown, string | undefined];
      const again = async ([method, path, body, key]: Write) => call(account, method, path, body, key);
      expect(await again(plain)).toMatchObject({ status: 201, body: { slug: `stall-${account}-plain` } });
      expect(await again(keyed)).toMatchObject({ status: 201, body: { slug: `stall-${account}-keyed` } });
      expect(await again(bulk)).toMatchObject({ status: 200, body: { results: [{ status: 201 }] } });
      expect(await again(change)).toMatchObject({
        status: 200,
        body: { destinationUrl: `https://example.com/${account}-new` },
      });
      expect((await again(remove)).status).toBe(204);
      expect((await again(intrusion)).status).toBe(404);
      // A keyed retry replays its answer
      expect(await again(keyed)).toMatchObject({ status: 201, body: { slug: `stall-${account}-keyed` } });
    }
    // Two accounts × (three creates, a change, a delete), each once
    expect(await linkEvents()).toBe(before + 10);
  }, 90_000);

  it('answers a change whose COMMIT went unanswered as "may or may not have been saved": it was', async () => {
    // Given a link
    const slug = await create('a', 'https://example.com/commit-1');
    // When Postgres takes the change's COMMIT and its answer is lost (the network fails just after)
    const reached = proxy.freezeAt(COMMIT_MESSAGE);
    const answer = call('a', 'PATCH', `/api/v1/links/${slug}`, { url: 'https://example.com/commit-2' });
    await reached;
    // Then the change is answered, saying the outcome is not known
    expect(await answer).toEqual({ status: 503, retryAfter: '5', body: UNCONFIRMED });
    // And it was saved: "not saved" would have been untrue
    proxy.thaw();
    expect(await claimOf(slug)).toMatchObject({ destination_url: 'https://example.com/commit-2' });
    // And sending the same change again is safe: it answers the link as changed
    expect(await call('a', 'PATCH', `/api/v1/links/${slug}`, { url: 'https://example.com/commit-2' })).toMatchObject({
      status: 200,
      body: { destinationUrl: 'https://example.com/commit-2' },
    });
  }, 60_000);

  it('commits a create’s claim once Postgres is back, though its first commit was lost and no projector runs', async () => {
    // Given a create whose claim's commit is lost on its way to Postgres (the connection then fails)
    const lost = proxy.freezeBefore(CLAIM_COMMIT);
    const created = call('a', 'POST', '/api/v1/links', { url: 'https://example.com/lost-commit' });
    await lost;
    // Then it is answered 201 all the same: its event is in the log
    const answer = await created;
    expect(answer.status).toBe(201);
    const slug = answer.body?.slug as string;
    expect(await claimOf(slug)).toMatchObject({ state: 'pending' });
    // When Postgres is reachable again (on new connections: the old ones were cut)
    await proxy.cut();
    await proxy.restore();
    proxy.thaw();
    // Then the write API commits the claim itself, well before the claim settler's minute
    // (no link projector runs here to commit it from the topic)
    const committedWithin = Date.now() + 10_000;
    while ((await claimOf(slug))?.state !== 'committed' && Date.now() < committedWithin) await sleep(100);
    expect(await claimOf(slug)).toMatchObject({ state: 'committed' });
    // And the link is one: its owner changes it
    expect(await call('a', 'PATCH', `/api/v1/links/${slug}`, { url: 'https://example.com/found' })).toMatchObject({
      status: 200,
    });
  }, 60_000);

  it('answers a change of the owner’s link whose create is not settled 503, never 404, and changes nothing', async () => {
    // Given two links of account a whose claims are still pending (their commits yet to land), none projected
    const slugs = [
      await create('a', 'https://example.com/unsettled-1'),
      await create('a', 'https://example.com/unsettled-2'),
    ];
    await infra.pool.query(`UPDATE slug_claims SET state = 'pending' WHERE slug = ANY($1)`, [slugs]);
    const [changed, removed] = slugs as [string, string];
    // When the owner changes one and deletes the other, and account b tries the same
    const answers = await Promise.all([
      call('a', 'PATCH', `/api/v1/links/${changed}`, { url: 'https://example.com/too-soon' }),
      call('a', 'DELETE', `/api/v1/links/${removed}`),
      call('b', 'PATCH', `/api/v1/links/${changed}`, { url: 'https://example.com/intruder' }),
      call('b', 'DELETE', `/api/v1/links/${removed}`),
    ]);
    // Then the owner hears that the link is not confirmed yet (to try again), the other account 404
    const notSettled = {
      status: 503,
      retryAfter: '2',
      body: {
        error: 'This link’s creation is not confirmed yet. Try again in a moment.',
        code: 'temporarily_unavailable',
        detail: 'The link was created moments ago and its create is still being confirmed.',
      },
    };
    const notFound = {
      status: 404,
      retryAfter: null,
      body: { error: 'Link not found', code: 'not_found', detail: expect.stringMatching(/^This account has no link /) },
    };
    expect(answers).toEqual([notSettled, notSettled, notFound, notFound]);
    // And nothing changed
    expect(await claimOf(changed)).toMatchObject({
      destination_url: 'https://example.com/unsettled-1',
      state: 'pending',
    });
    expect(await claimOf(removed)).toMatchObject({ deleted_at: null, state: 'pending' });
    // And once the claims are committed, the same requests do what they say
    await infra.pool.query(`UPDATE slug_claims SET state = 'committed' WHERE slug = ANY($1)`, [slugs]);
    expect(await call('a', 'PATCH', `/api/v1/links/${changed}`, { url: 'https://example.com/too-soon' })).toMatchObject(
      {
        status: 200,
        body: { destinationUrl: 'https://example.com/too-soon' },
      },
    );
    expect((await call('a', 'DELETE', `/api/v1/links/${removed}`)).status).toBe(204);
  }, 60_000);
});

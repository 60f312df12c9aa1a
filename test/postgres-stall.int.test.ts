import { randomUUID } from 'node:crypto';
import { createAccountWithKey } from '@shortlink/accounts';
import { infraEnv } from '@shortlink/testing';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * A Postgres that stalls rather than refuses (frozen, partitioned away,
 * failing over): the services' connections stay open and nothing comes back.
 * The redirector and the read API as their own processes, their Postgres
 * through a proxy that lets no byte through while frozen. Every request must
 * be answered while Postgres is still stalled: a warm link from memory,
 * anything that needs Postgres 503 with Retry-After.
 */
let infra: TestInfra;
let proxy: TcpProxy;
/** The read API's ClickHouse, behind a proxy of its own. */
let clickhouseProxy: TcpProxy;
let redirector: RunningProcess;
let analytics: RunningProcess;

const LEASE_LAPSED_MS = 4000;
/** Far beyond any bound of the redirector's own: a request not answered by then waited on the stall. */
const GIVE_UP_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const urlOf = (slug: string) => `https://example.com/${slug}`;

async function insertLink(slug: string, url: string, accountId: string) {
  await infra.pool.query(
    `INSERT INTO links (slug, link_id, account_id, destination_url, created_at, event_id, source_partition, source_offset)
     VALUES ($1, $2, $3, $4, now(), $5, 0, 0)`,
    [slug, randomUUID(), accountId, url, randomUUID()],
  );
}

async function get(slug: string) {
  const res = await fetch(`${redirector.url}/${slug}`, {
    redirect: 'manual',
    signal: AbortSignal.timeout(GIVE_UP_MS),
    headers: { 'user-agent': 'stall-test' },
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  };
}

beforeAll(async () => {
  buildOnce();
  infra = await openTestInfra();
  proxy = await startTcpProxy(Number(new URL(infra.db.url).port || 5432));
  const url = new URL(infra.db.url);
  url.port = String(proxy.port);
  const env = {
    DATABASE_URL: url.toString(),
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
  };
  const clickhouse = infraEnv(process.env);
  const clickhouseUrl = new URL(clickhouse.CLICKHOUSE_URL);
  clickhouseProxy = await startTcpProxy(Number(clickhouseUrl.port || 8123), clickhouseUrl.hostname);
  clickhouseUrl.port = String(clickhouseProxy.port);
  [redirector, analytics] = await Promise.all([
    startProcess('services/redirector/dist/main.js', env),
    startProcess('services/analytics/dist/main.js', {
      ...env,
      CLICKHOUSE_URL: clickhouseUrl.toString(),
      CLICKHOUSE_USER: clickhouse.CLICKHOUSE_USER,
      CLICKHOUSE_PASSWORD: clickhouse.CLICKHOUSE_PASSWORD,
      CLICKHOUSE_DATABASE: infra.clickhouseDatabase,
      PUBLIC_BASE_URL: 'https://sho.rt',
    }),
  ]);
}, 60_000);

afterAll(async () => {
  proxy?.thaw();
  clickhouseProxy?.thaw();
  await Promise.all([redirector?.stop(), analytics?.stop()]);
  await Promise.all([proxy?.close(), clickhouseProxy?.close()]);
  await infra?.close();
});

it('answers every redirect while Postgres stalls: warm links from memory, the rest 503 with Retry-After', async () => {
  // Given links of two accounts, some answered once (warm), some never asked for (cold), and a slug remembered as missing
  const warm = Array.from({ length: 4 }, (_, i) => ({ slug: `warm-${i}-${randomUUID().slice(0, 6)}`, i }));
  const cold = Array.from({ length: 4 }, (_, i) => ({ slug: `cold-${i}-${randomUUID().slice(0, 6)}`, i }));
  const accounts = [randomUUID(), randomUUID()];
  for (const { slug, i } of [...warm, ...cold]) await insertLink(slug, urlOf(slug), accounts[i % 2]!);
  for (const { slug } of warm) expect(await get(slug)).toMatchObject({ status: 302, location: urlOf(slug) });
  const missing = `missing-${randomUUID().slice(0, 8)}`;
  expect((await get(missing)).status).toBe(404);

  // When Postgres stops answering
  proxy.freeze();
  try {
    // Then, before the redirector's lease has lapsed, the slug remembered as missing is not known
    // to be missing still (its confirmation cannot come back): 503, not a wait
    const early = await get(missing);
    expect(early.status).toBe(503);

    // And once the lease has lapsed (nothing cached is trusted without Postgres saying so), many at once:
    await sleep(LEASE_LAPSED_MS);
    const asked = [...warm, ...warm, ...warm, ...cold, ...cold].map(({ slug }) => slug);
    const answers = await Promise.all(asked.map(async (slug) => ({ slug, ...(await get(slug)) })));
    for (const a of answers) {
      if (warm.some((w) => w.slug === a.slug)) {
        // every warm link still redirects, each to its own place
        expect(a).toMatchObject({ status: 302, location: urlOf(a.slug) });
      } else {
        // and every cold one is unavailable for now, in the API's error shape
        expect(a).toMatchObject({ status: 503, location: null, retryAfter: '1' });
        expect(JSON.parse(a.body)).toEqual({
          error: 'The link cannot be looked up right now. Try again in a moment.',
          code: 'temporarily_unavailable',
          detail: 'The link store did not answer and this redirector holds no copy of the link.',
        });
      }
    }
  } finally {
    // All of it answered while Postgres was still stalled
    proxy.thaw();
  }

  // When Postgres answers again, the cold links redirect, and the missing slug is missing
  for (const { slug } of cold) {
    for (let attempt = 0; ; attempt++) {
      const res = await get(slug);
      if (res.status === 302 || attempt === 50) {
        expect(res).toMatchObject({ status: 302, location: urlOf(slug) });
        break;
      }
      await sleep(200);
    }
  }
  expect((await get(missing)).status).toBe(404);
}, 120_000);

it('answers reads of links while Postgres stalls with 503 and Retry-After; a key seen before and one never seen alike', async () => {
  // Given two accounts' keys, one of them used once (its key cached), and a link of each
  const [seen, unseen] = await Promise.all(
    ['seen', 'unseen'].map((name) =>
      createAccountWithKey(infra.pool, { accountName: name, keyName: 'k', plan: 'pro' }),
    ),
  );
  const slugs = [`read-a-${randomUUID().slice(0, 6)}`, `read-b-${randomUUID().slice(0, 6)}`];
  await insertLink(slugs[0]!, urlOf(slugs[0]!), seen!.account.id);
  await insertLink(slugs[1]!, urlOf(slugs[1]!), unseen!.account.id);
  const read = async (path: string, key: string) => {
    const res = await fetch(`${analytics.url}${path}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  };
  expect((await read(`/api/v1/links/${slugs[0]}`, seen!.key)).status).toBe(200);
  // Several at once, so the service holds open connections to the stalling Postgres (a new one would fail on its own, in 5 s)
  const lists = await Promise.all(Array.from({ length: 6 }, () => read('/api/v1/links', seen!.key)));
  expect(lists.map((l) => l.status)).toEqual([200, 200, 200, 200, 200, 200]);

  // When Postgres stops answering
  proxy.freeze();
  try {
    // Then every read that needs Postgres, several at once, is answered while it is still stalled: 503, Retry-After
    const answers = await Promise.all([
      read(`/api/v1/links/${slugs[0]}`, seen!.key),
      read('/api/v1/links', seen!.key),
      read(`/api/v1/links/${slugs[0]}/analytics?range=7d`, seen!.key),
      read(`/api/v1/links/${slugs[1]}`, unseen!.key),
      read('/api/v1/links', unseen!.key),
    ]);
    for (const a of answers) {
      expect(a).toMatchObject({ status: 503, body: { code: 'temporarily_unavailable' } });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
  } finally {
    proxy.thaw();
  }

  // And once it answers again, so do the reads, each account its own link only
  expect(await read(`/api/v1/links/${slugs[1]}`, unseen!.key)).toMatchObject({ status: 200, body: { slug: slugs[1] } });
  expect((await read(`/api/v1/links/${slugs[1]}`, seen!.key)).status).toBe(404);
}, 120_000);

it('answers analytics while ClickHouse stalls with 503 and Retry-After, and links still from Postgres', async () => {
  // Given two accounts with a link each, whose analytics were read (several at once: the service holds open connections)
  const accounts = await Promise.all(
    ['ch-a', 'ch-b'].map((name) => createAccountWithKey(infra.pool, { accountName: name, keyName: 'k', plan: 'pro' })),
  );
  const slugs = accounts.map(() => `ch-${randomUUID().slice(0, 8)}`);
  await Promise.all(slugs.map((slug, i) => insertLink(slug, urlOf(slug), accounts[i]!.account.id)));
  const read = async (path: string, i: number) => {
    const res = await fetch(`${analytics.url}${path}`, {
      headers: { authorization: `Bearer ${accounts[i]!.key}` },
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  };
  const analyticsOf = (i: number, range = '7d') => read(`/api/v1/links/${slugs[i]}/analytics?range=${range}`, i);
  const warm = await Promise.all([0, 1, 0, 1, 0, 1].map((i) => analyticsOf(i)));
  expect(warm.map((w) => w.status)).toEqual([200, 200, 200, 200, 200, 200]);

  // When ClickHouse stops answering
  clickhouseProxy.freeze();
  try {
    // Then both accounts' analytics, several at once, are answered while it is still stalled: 503, Retry-After
    const [a7, b7, a30, b30, linkA, linkB] = await Promise.all([
      analyticsOf(0),
      analyticsOf(1),
      analyticsOf(0, '30d'),
      analyticsOf(1, '30d'),
      read(`/api/v1/links/${slugs[0]}`, 0),
      read(`/api/v1/links/${slugs[1]}`, 1),
    ]);
    for (const a of [a7, b7, a30, b30]) {
      expect(a).toMatchObject({ status: 503, body: { code: 'temporarily_unavailable' } });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // And a link, which needs Postgres only, is read as ever
    expect(linkA).toMatchObject({ status: 200, body: { slug: slugs[0] } });
    expect(linkB).toMatchObject({ status: 200, body: { slug: slugs[1] } });
  } finally {
    clickhouseProxy.thaw();
  }

  // And once it answers again, so do the analytics, each account its own link's only
  expect(await analyticsOf(0)).toMatchObject({ status: 200, body: { slug: slugs[0], totalClicks: 0 } });
  expect(await analyticsOf(1)).toMatchObject({ status: 200, body: { slug: slugs[1], totalClicks: 0 } });
  expect((await read(`/api/v1/links/${slugs[1]}/analytics`, 0)).status).toBe(404);
}, 120_000);

import { randomUUID } from 'node:crypto';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * A Postgres that stalls rather than refuses (frozen, partitioned away,
 * failing over): the redirector's connections stay open and nothing comes
 * back. The redirector as its own process, its Postgres through a proxy that
 * lets no byte through while frozen. Every redirect must be answered while
 * Postgres is still stalled: a warm link from memory, anything else 503.
 */
let infra: TestInfra;
let proxy: TcpProxy;
let redirector: RunningProcess;

const LEASE_LAPSED_MS = 4000;
/** Far beyond any bound of the redirector's own: a request not answered by then waited on the stall. */
const GIVE_UP_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  redirector = await startProcess('services/redirector/dist/main.js', {
    DATABASE_URL: url.toString(),
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
  });
}, 60_000);

afterAll(async () => {
  proxy?.thaw();
  await redirector?.stop();
  await proxy?.close();
  await infra?.close();
});

it('answers every redirect while Postgres stalls: warm links from memory, the rest 503 with Retry-After', async () => {
  // Given links of two accounts, some answered once (warm), some never asked for (cold), and a slug remembered as missing
  const warm = Array.from({ length: 4 }, (_, i) => ({ slug: `warm-${i}-${randomUUID().slice(0, 6)}`, i }));
  const cold = Array.from({ length: 4 }, (_, i) => ({ slug: `cold-${i}-${randomUUID().slice(0, 6)}`, i }));
  const accounts = [randomUUID(), randomUUID()];
  const urlOf = (slug: string) => `https://example.com/${slug}`;
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

import { randomUUID } from 'node:crypto';
import { postgresDomainStore } from '@shortlink/domains';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * Links on branded domains end to end, on real Postgres, Kafka and ClickHouse: two accounts, each with a verified
 * domain, hold the same slug there, and one of them on the installation's own domain too. Each visit goes to its own
 * link by `Host`, each click is counted for that link alone, read by `?domain=`, and lands in ClickHouse with its
 * domain; the link events on the topic carry it.
 */
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const call = async (method: 'GET' | 'POST', url: string, key: string, payload?: unknown) => {
  const res = await system.app.inject({ method, url, headers: auth(key), payload: payload as object });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
};

/** Claimed through the API, verified as `npm run domains -- verify` does (this machine's DNS holds no record). */
async function verifiedDomain(key: string, hostname: string): Promise<void> {
  expect((await call('POST', '/api/v1/domains', key, { hostname })).status).toBe(201);
  const { rows } = await system.infra.pool.query<{ account_id: string }>(
    'SELECT account_id FROM domains WHERE hostname = $1',
    [hostname],
  );
  const verified = await postgresDomainStore(system.infra.pool).markVerified(
    rows[0]!.account_id,
    hostname,
    'operator',
    randomUUID(),
  );
  expect(verified).toMatchObject({ hostname });
}

async function visit(host: string, path: string, address: string, method = 'GET'): Promise<string | number> {
  const res = await system.app.inject({
    method: method as 'GET' | 'HEAD',
    url: path,
    headers: { host, 'user-agent': DESKTOP, 'x-forwarded-for': address },
  });
  return res.statusCode === 302 ? (res.headers.location as string) : res.statusCode;
}

describe('links on branded domains', () => {
  it('go each to its own link by Host, and count each click for that link alone, with its domain', async () => {
    await verifiedDomain(system.proKey, 'go.pro.example');
    await verifiedDomain(system.freeKey, 'go.free.example');
    const created = await Promise.all([
      call('POST', '/api/v1/links', system.proKey, {
        url: 'https://pro.example/promo',
        customSlug: 'promo',
        domain: 'go.pro.example',
      }),
      call('POST', '/api/v1/links', system.freeKey, {
        url: 'https://free.example/promo',
        customSlug: 'promo',
        domain: 'GO.FREE.EXAMPLE',
      }),
      call('POST', '/api/v1/links', system.freeKey, { url: 'https://free.example/own', customSlug: 'promo' }),
    ]);
    expect(created.map((c) => [c.status, c.body.shortUrl])).toEqual([
      [201, 'https://go.pro.example/promo'],
      [201, 'https://go.free.example/promo'],
      [201, 'https://sho.rt/promo'],
    ]);

    // The redirector learns a verified domain from its notification: served once it has. Asked by HEAD, which
    // counts no click (until then the name is the installation's, whose `promo` is free's own link).
    for (const [host, location] of [
      ['go.pro.example', 'https://pro.example/promo'],
      ['go.free.example', 'https://free.example/promo'],
    ]) {
      await eventually(
        async () => ((await visit(host!, '/promo', '198.51.100.1', 'HEAD')) === location ? true : undefined),
        30_000,
        `${host} served`,
      );
    }
    expect(await visit('go.pro.example', '/promo', '198.51.100.2')).toBe('https://pro.example/promo');
    expect(await visit('go.pro.example:443', '/promo', '198.51.100.6')).toBe('https://pro.example/promo');
    expect(await visit('go.free.example', '/promo', '198.51.100.3')).toBe('https://free.example/promo');
    expect(await visit('sho.rt', '/promo', '198.51.100.4')).toBe('https://free.example/own');
    expect(await visit('sho.rt', '/promo', '198.51.100.5')).toBe('https://free.example/own');
    await system.flushClicks();

    // Read from ClickHouse until all five are in (the API's reads count against the free plan's limit).
    const rows = await eventually(
      async () => {
        const found = await (
          await system.infra.clickhouse.query({
            query:
              "SELECT domain, slug, count() AS clicks FROM clicks WHERE slug = 'promo' GROUP BY domain, slug ORDER BY domain",
            format: 'JSONEachRow',
          })
        ).json<{ domain: string; slug: string; clicks: string }>();
        return found.reduce((n, r) => n + Number(r.clicks), 0) >= 5 ? found : undefined;
      },
      60_000,
      'the five clicks in ClickHouse',
    );
    const totalClicks = async (key: string, query: string) => {
      const { status, body } = await call('GET', `/api/v1/links/promo/analytics${query}`, key);
      expect(status).toBe(200);
      return body.totalClicks as number;
    };
    // Two on pro's domain link, one on free's, two on free's link on ours: each read alone.
    const expected: [string, string, number][] = [
      [system.proKey, '?domain=go.pro.example', 2],
      [system.freeKey, '?domain=go.free.example', 1],
      [system.freeKey, '', 2],
    ];
    expect(await Promise.all(expected.map(([key, query]) => totalClicks(key, query)))).toEqual([2, 1, 2]);
    // Another account's domain names none of its links.
    expect((await call('GET', '/api/v1/links/promo?domain=go.pro.example', system.freeKey)).status).toBe(404);
    const read = await call('GET', '/api/v1/links/promo?domain=Go.Pro.Example.', system.proKey);
    expect(read.body).toMatchObject({
      slug: 'promo',
      domain: 'go.pro.example',
      shortUrl: 'https://go.pro.example/promo',
    });

    // The account's clicks by domain: ours named by its host.
    const byDomain = async (key: string) =>
      (await call('GET', '/api/v1/analytics?groupBy=domain', key)).body.rows as { name: string; clicks: number }[];
    expect((await byDomain(system.proKey)).map((r) => [r.name, r.clicks])).toEqual([['go.pro.example', 2]]);
    expect((await byDomain(system.freeKey)).map((r) => [r.name, r.clicks])).toEqual([
      ['sho.rt', 2],
      ['go.free.example', 1],
    ]);

    expect(rows.map((r) => [r.domain, r.slug, Number(r.clicks)])).toEqual([
      ['', 'promo', 2],
      ['go.free.example', 'promo', 1],
      ['go.pro.example', 'promo', 2],
    ]);
  }, 120_000);
});

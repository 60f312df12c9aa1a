import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLICKHOUSE_MIGRATIONS_DIR, createClickHouse, migrateClickHouse } from '@shortlink/clickhouse';
import { createScratchClickHouse, eventually, infraEnv } from '@shortlink/testing';
import { readAccountStats } from '../services/analytics/src/account/account-stats';
import { issueKey, startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * GET /api/v1/analytics end to end (redirects → Kafka → projector →
 * ClickHouse → the API), two accounts side by side; and migration 0005's fill
 * of the account aggregates from clicks recorded before it.
 */

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

interface Row {
  name: string;
  linkId?: string;
  clicks: number;
  uniqueVisitors: number;
}
interface Answer {
  range: string;
  from: string;
  to: string;
  totalClicks: number;
  uniqueVisitors: number;
  groupBy: string;
  rows: Row[];
}

let system: LinkSystem;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  system = await startLinkSystem();
  keyA = system.proKey;
  keyB = await issueKey(system.infra.pool, 'pro');
});

afterAll(async () => {
  await system?.close();
});

async function api(key: string, method: string, url: string, payload?: object) {
  return system.app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  });
}

async function create(key: string, slug: string, tag: string | null): Promise<string> {
  const res = await api(key, 'POST', '/api/v1/links', { url: `https://example.com/${slug}`, customSlug: slug, tag });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

async function visit(slug: string, ip: string, ua = CHROME, referer?: string) {
  const res = await system.app.inject({
    method: 'GET',
    url: `/${slug}`,
    headers: { 'user-agent': ua, 'x-forwarded-for': ip, ...(referer ? { referer } : {}) },
  });
  expect(res.statusCode).toBe(302);
}

const account = async (key: string, query: string): Promise<Answer> => {
  const res = await api(key, 'GET', `/api/v1/analytics?${query}`);
  expect(res.statusCode).toBe(200);
  return res.json<Answer>();
};

const linkAnalytics = async (key: string, slug: string) =>
  (await api(key, 'GET', `/api/v1/links/${slug}/analytics?range=7d`)).json<{
    totalClicks: number;
    uniqueVisitors: number;
    countries: { name: string; count: number }[];
    devices: { name: string; count: number }[];
    browsers: { name: string; count: number }[];
    referrers: { name: string; count: number }[];
  }>();

const A = { spring1: 'acct-a-spring1', spring2: 'acct-a-spring2', fall: 'acct-a-fall', plain: 'acct-a-plain' };
const B = { spring: 'acct-b-spring', fall: 'acct-b-fall' };

describe('GET /api/v1/analytics, two accounts side by side', () => {
  beforeAll(async () => {
    await create(keyA, A.spring1, 'spring');
    await create(keyA, A.spring2, 'spring');
    await create(keyA, A.fall, 'fall');
    await create(keyA, A.plain, null);
    await create(keyB, B.spring, 'spring');
    await create(keyB, B.fall, 'fall');
    // Account A: 7 clicks from 4 visitors, 8.8.8.8 on three links.
    await visit(A.spring1, '8.8.8.8', CHROME, 'https://news.ycombinator.com/item?id=1');
    await visit(A.spring1, '81.2.69.142', IPHONE);
    await visit(A.spring1, '8.8.8.8');
    await visit(A.spring2, '8.8.8.8', IPHONE);
    await visit(A.spring2, '62.210.16.1');
    await visit(A.fall, '193.0.0.1', CHROME, 'https://www.google.com/search?q=x');
    await visit(A.plain, '8.8.8.8');
    // Account B: 3 clicks, one of them by a visitor of A's (8.8.8.8), on links of the same tags.
    await visit(B.spring, '8.8.8.8');
    await visit(B.spring, '5.5.5.5', IPHONE);
    await visit(B.fall, '9.9.9.9');
    await system.flushClicks();
    await eventually(
      async () => {
        const [a, b] = [await account(keyA, 'groupBy=day'), await account(keyB, 'groupBy=day')];
        return a.totalClicks === 7 && b.totalClicks === 3 ? true : undefined;
      },
      30_000,
      '7 clicks for A and 3 for B',
    );
  });

  it('answers the totals of the key’s account: clicks summed over its links, visitors merged across them', async () => {
    const perLink = await Promise.all(Object.values(A).map((slug) => linkAnalytics(keyA, slug)));
    const body = await account(keyA, 'range=7d');
    expect(body).toMatchObject({ range: '7d', groupBy: 'link', totalClicks: 7, uniqueVisitors: 4 });
    expect(body.totalClicks).toBe(perLink.reduce((n, s) => n + s.totalClicks, 0));
    // A sum of the links' visitors would count 8.8.8.8 three times: 2 + 2 + 1 + 1.
    expect(perLink.reduce((n, s) => n + s.uniqueVisitors, 0)).toBe(6);
    expect(await account(keyB, 'range=all')).toMatchObject({ totalClicks: 3, uniqueVisitors: 3 });
  });

  it('groups by link exactly as each link’s own analytics answer, and never lists the other account’s', async () => {
    const body = await account(keyA, 'groupBy=link&limit=100');
    const expected = await Promise.all(
      Object.values(A).map(async (slug) => {
        const s = await linkAnalytics(keyA, slug);
        return { name: slug, clicks: s.totalClicks, uniqueVisitors: s.uniqueVisitors };
      }),
    );
    expect(body.rows.map(({ linkId, ...row }) => (expect(linkId).toMatch(/^[0-9a-f-]{36}$/), row))).toEqual(
      expected.sort((a, b) => b.clicks - a.clicks || (a.name < b.name ? -1 : 1)),
    );
    expect((await account(keyB, 'groupBy=link')).rows.map((r) => r.name).sort()).toEqual([B.fall, B.spring]);
    expect((await account(keyA, 'groupBy=link&limit=2')).rows.map((r) => r.name)).toEqual([A.spring1, A.spring2]);
  });

  it.each([
    ['country', 'countries'],
    ['device', 'devices'],
    ['browser', 'browsers'],
    ['referrer', 'referrers'],
  ] as const)('groups by %s as the links’ breakdowns summed', async (groupBy, field) => {
    const sums = new Map<string, number>();
    for (const slug of Object.values(A)) {
      for (const { name, count } of (await linkAnalytics(keyA, slug))[field])
        sums.set(name, (sums.get(name) ?? 0) + count);
    }
    const body = await account(keyA, `groupBy=${groupBy}&limit=100`);
    expect(new Map(body.rows.map((r) => [r.name, r.clicks]))).toEqual(sums);
    expect(body.rows.reduce((n, r) => n + r.clicks, 0)).toBe(7);
    for (const r of body.rows) expect(r.uniqueVisitors).toBeLessThanOrEqual(r.clicks);
  });

  it('groups by day: today holds every click and every visitor', async () => {
    const body = await account(keyA, 'groupBy=day');
    expect(body.rows).toEqual([{ name: body.to, clicks: 7, uniqueVisitors: 4 }]);
  });

  it('rolls tags up with visitors merged across the tag’s links, each account its own, by the current tag', async () => {
    expect((await account(keyA, 'groupBy=tag')).rows).toEqual([
      { name: 'spring', clicks: 5, uniqueVisitors: 3 },
      { name: 'fall', clicks: 1, uniqueVisitors: 1 },
    ]);
    expect((await account(keyB, 'groupBy=tag')).rows).toEqual([
      { name: 'spring', clicks: 2, uniqueVisitors: 2 },
      { name: 'fall', clicks: 1, uniqueVisitors: 1 },
    ]);
    // A link moved to another tag takes its clicks along: the roll-up follows the tag it has now.
    expect((await api(keyA, 'PATCH', `/api/v1/links/${A.fall}`, { tag: 'spring' })).statusCode).toBe(200);
    await eventually(
      async () => {
        const { rows } = await account(keyA, 'groupBy=tag');
        return rows.length === 1 ? rows : undefined;
      },
      30_000,
      'the tag change projected',
    ).then((rows) => expect(rows).toEqual([{ name: 'spring', clicks: 6, uniqueVisitors: 4 }]));
    expect((await account(keyB, 'groupBy=tag')).rows).toHaveLength(2);
  });

  it('keeps a deleted link’s clicks under its last tag', async () => {
    expect((await api(keyA, 'DELETE', `/api/v1/links/${A.spring2}`)).statusCode).toBe(204);
    await eventually(
      async () => {
        const query = 'SELECT count() AS n FROM link_tags WHERE deleted = 1';
        const [row] = await (
          await system.infra.clickhouse.query({ query, format: 'JSONEachRow' })
        ).json<{ n: number }>();
        return Number(row?.n) > 0 ? true : undefined;
      },
      30_000,
      'the deletion projected',
    );
    expect((await account(keyA, 'groupBy=tag')).rows).toEqual([{ name: 'spring', clicks: 6, uniqueVisitors: 4 }]);
    expect(await account(keyA, 'range=7d')).toMatchObject({ totalClicks: 7, uniqueVisitors: 4 });
  });
});

describe('migration 0005 on clicks recorded before it', () => {
  it('fills the account aggregates from clicks, then counts new clicks once', async () => {
    const env = infraEnv(process.env);
    const scratch = await createScratchClickHouse(env);
    const clickhouse = createClickHouse({
      url: env.CLICKHOUSE_URL,
      database: scratch.name,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      applicationName: 'test',
    });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'ch-0005-'));
      for (const f of [
        '0001_clicks.sql',
        '0002_link_visitors.sql',
        '0003_link_uniques.sql',
        '0004_click_triggers.sql',
      ]) {
        await copyFile(join(CLICKHOUSE_MIGRATIONS_DIR, f), join(dir, f));
      }
      await migrateClickHouse(clickhouse, dir);
      const accounts = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
      const links = [0, 1, 2].map((i) => `00000000-0000-4000-8000-0000000000${i}1`);
      let n = 0;
      const click = (account: number, link: number, visitor: string, daysAgo: number, country = 'DE') => ({
        event_id: `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`,
        link_id: links[link],
        account_id: accounts[account],
        slug: `old-${link}`,
        clicked_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString().replace('T', ' ').slice(0, 23),
        visitor_hash: visitor.repeat(64),
        referrer: 'Direct',
        country,
        device: 'desktop',
        browser: 'Chrome',
        os: 'Linux',
        source_partition: 0,
        source_offset: n,
      });
      // Account a: links 0 and 1, visitor 'a' on both, over two days; account b: link 2, visitor 'a' too.
      const before = [click(0, 0, 'a', 0), click(0, 0, 'b', 1, 'FR'), click(0, 1, 'a', 1), click(1, 2, 'a', 0)];
      await clickhouse.insert({ table: 'clicks', values: before, format: 'JSONEachRow' });

      await copyFile(
        join(CLICKHOUSE_MIGRATIONS_DIR, '0005_account_analytics.sql'),
        join(dir, '0005_account_analytics.sql'),
      );
      expect((await migrateClickHouse(clickhouse, dir)).applied).toEqual(['0005_account_analytics.sql']);
      await clickhouse.insert({ table: 'clicks', values: [click(0, 1, 'c', 0, 'FR')], format: 'JSONEachRow' });

      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const read = (account: number, groupBy: 'link' | 'country' | 'day') =>
        readAccountStats(clickhouse, { accountId: accounts[account]!, groupBy, limit: 10, from: yesterday, to: today });
      expect(await read(0, 'link')).toEqual({
        totalClicks: 4,
        uniqueVisitors: 3,
        rows: [
          { name: 'old-0', linkId: links[0], clicks: 2, uniqueVisitors: 2 },
          { name: 'old-1', linkId: links[1], clicks: 2, uniqueVisitors: 2 },
        ],
      });
      expect((await read(0, 'country')).rows).toEqual([
        { name: 'DE', clicks: 2, uniqueVisitors: 1 },
        { name: 'FR', clicks: 2, uniqueVisitors: 2 },
      ]);
      expect((await read(0, 'day')).rows).toEqual([
        { name: yesterday, clicks: 2, uniqueVisitors: 2 },
        { name: today, clicks: 2, uniqueVisitors: 2 },
      ]);
      expect(await read(1, 'link')).toEqual({
        totalClicks: 1,
        uniqueVisitors: 1,
        rows: [{ name: 'old-2', linkId: links[2], clicks: 1, uniqueVisitors: 1 }],
      });
    } finally {
      await clickhouse.close();
      await scratch.drop();
    }
  });
});

describe('the tag roll-up of an account with 100,000 tagged links', () => {
  it('reads each link’s newest tag in ClickHouse, the account’s own, a deleted link under its last tag', async () => {
    const env = infraEnv(process.env);
    const scratch = await createScratchClickHouse(env);
    const clickhouse = createClickHouse({
      url: env.CLICKHOUSE_URL,
      database: scratch.name,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      applicationName: 'test',
    });
    try {
      await migrateClickHouse(clickhouse, CLICKHOUSE_MIGRATIONS_DIR);
      const accounts = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
      const link = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      // Account a: 100,000 links (the bench's account), 80,000 under spring and 20,000 under summer, as their
      // LinkCreated events write them; then link 80,000 retagged summer (version 2), link 100,000 deleted (version 3).
      await clickhouse.command({
        query: `INSERT INTO link_tags (account_id, link_id, deleted, tag, version)
                SELECT {a:UUID}, toUUID(concat('00000000-0000-4000-8000-', leftPad(toString(number), 12, '0'))), 0,
                       if(number <= 80000, 'spring', 'summer'), 1
                  FROM numbers(1, 100000)`,
        query_params: { a: accounts[0] },
      });
      const tagRows = [
        [accounts[0], link(80_000), 0, 'summer', 2],
        [accounts[0], link(100_000), 1, '', 3],
        // Account b's own tag for a link id account a also names.
        [accounts[1], link(2), 0, 'winter', 1],
      ];
      await clickhouse.insert({ table: 'link_tags', values: tagRows, format: 'JSONCompactEachRow' });
      const clicks = [
        [0, 1, 'a'],
        [0, 80_000, 'b'],
        [0, 80_001, 'a'],
        [0, 100_000, 'c'],
        [0, 200_000, 'd'], // a link under no tag
        [1, 2, 'a'], // the other account's click on a link id account a tags spring
      ].map(([account, i, visitor], n) => ({
        event_id: `00000000-0000-4000-9000-${String(n + 1).padStart(12, '0')}`,
        link_id: link(i as number),
        account_id: accounts[account as number],
        slug: `s-${i}`,
        clicked_at: new Date().toISOString().replace('T', ' ').slice(0, 23),
        visitor_hash: (visitor as string).repeat(64),
        referrer: 'Direct',
        country: 'DE',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Linux',
        source_partition: 0,
        source_offset: n,
      }));
      await clickhouse.insert({ table: 'clicks', values: clicks, format: 'JSONEachRow' });
      const today = new Date().toISOString().slice(0, 10);
      const read = (account: number) =>
        readAccountStats(clickhouse, {
          accountId: accounts[account]!,
          groupBy: 'tag',
          limit: 10,
          from: today,
          to: today,
        });
      expect(await read(0)).toEqual({
        totalClicks: 5,
        uniqueVisitors: 4,
        rows: [
          { name: 'summer', clicks: 3, uniqueVisitors: 3 },
          { name: 'spring', clicks: 1, uniqueVisitors: 1 },
        ],
      });
      expect(await read(1)).toEqual({
        totalClicks: 1,
        uniqueVisitors: 1,
        rows: [{ name: 'winter', clicks: 1, uniqueVisitors: 1 }],
      });
    } finally {
      await clickhouse.close();
      await scratch.drop();
    }
  });
});

import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

const UA = {
  chrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  safari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  slack: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  curl: 'curl/8.5.0',
};

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

async function create(slug: string, key = system.proKey) {
  const res = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: { url: `https://example.com/${slug}`, customSlug: slug },
  });
  expect(res.statusCode).toBe(201);
}

async function visit(slug: string, ua: string, ip: string, referer?: string, extra: Record<string, string> = {}) {
  const res = await system.app.inject({
    method: extra.method ?? 'GET',
    url: `/${slug}`,
    headers: { 'user-agent': ua, 'x-forwarded-for': ip, ...(referer ? { referer } : {}), ...extra },
  });
  expect(res.statusCode).toBe(302);
}

function analytics(slug: string, range?: string, key = system.proKey) {
  return system.app.inject({
    method: 'GET',
    url: `/api/v1/links/${slug}/analytics${range ? `?range=${range}` : ''}`,
    headers: { authorization: `Bearer ${key}` },
  });
}

/** Creates a link through the API; its id. */
async function createdId(slug: string): Promise<string> {
  const res = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
    payload: { url: `https://example.com/${slug}`, customSlug: slug },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

/** A row of `clicks` as the projector writes it, for clicks the redirector could not make (past days, odd devices). */
function clickRow(
  link: { id: string; slug: string },
  i: number,
  { visitor = 'f', daysAgo = 0, device = 'desktop', browser = 'Chrome', referrer = 'Direct', country = 'XX' } = {},
) {
  return {
    event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    link_id: link.id,
    account_id: link.id,
    slug: link.slug,
    clicked_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString().replace('T', ' ').slice(0, 23),
    visitor_hash: visitor.repeat(64),
    referrer,
    country,
    device,
    browser,
    os: 'Linux',
    source_partition: 0,
    source_offset: i,
  };
}

async function settled(slug: string, expectedClicks: number) {
  await system.flushClicks();
  return eventually(
    async () => {
      const body = (await analytics(slug)).json();
      return body.totalClicks === expectedClicks ? body : undefined;
    },
    30_000,
    `${expectedClicks} clicks on ${slug}`,
  );
}

const today = new Date().toISOString().slice(0, 10);

describe('GET /api/v1/links/:slug/analytics, end to end', () => {
  it('counts human visits only, and fills every field', async () => {
    await create('stats-1');
    // Humans: 9 visits from 6 visitors (IPs).
    await visit('stats-1', UA.chrome, '8.8.8.8', 'https://news.ycombinator.com/item?id=42');
    await visit('stats-1', UA.chrome, '8.8.8.8', 'https://news.ycombinator.com/newest');
    await visit('stats-1', UA.firefox, '81.2.69.142');
    await visit('stats-1', UA.safari, '5.5.5.5', 'https://www.google.com/search?q=x');
    await visit('stats-1', UA.iphone, '81.2.69.142', 'android-app://com.slack/');
    await visit('stats-1', UA.ipad, '62.210.16.1');
    await visit('stats-1', UA.android, '62.210.16.1', 'https://news.ycombinator.com/');
    await visit('stats-1', UA.edge, '10.1.2.3');
    await visit('stats-1', UA.android, '193.0.0.1', '');
    // Not counted, still redirected.
    await visit('stats-1', UA.googlebot, '66.249.66.1');
    await visit('stats-1', UA.slack, '8.8.8.8');
    await visit('stats-1', UA.curl, '8.8.8.8');
    await visit('stats-1', '', '8.8.8.8');
    await visit('stats-1', UA.chrome, '8.8.8.8', undefined, { method: 'HEAD' });
    await visit('stats-1', UA.chrome, '8.8.8.8', undefined, { 'sec-purpose': 'prefetch' });

    const body = await settled('stats-1', 9);
    expect(Object.keys(body).sort()).toEqual(
      [
        'browsers',
        'byRule',
        'byVariant',
        'clicksOverTime',
        'countries',
        'devices',
        'filtered',
        'range',
        'referrers',
        'slug',
        'totalClicks',
        'triggers',
        'uniqueVisitors',
      ].sort(),
    );
    expect(body.slug).toBe('stats-1');
    expect(body.range).toBe('7d');
    // The six redirects that are no click are counted apart, by reason (the redirector sends its tally every 5 s).
    const { filtered } = await eventually(
      async () => {
        const answer = (await analytics('stats-1')).json();
        return answer.filtered.total === 6 ? answer : undefined;
      },
      30_000,
      'the six filtered redirects of stats-1',
    );
    expect(filtered).toEqual({
      total: 6,
      reasons: [
        { name: 'crawler', count: 2 },
        { name: 'head', count: 1 },
        { name: 'http_library', count: 1 },
        { name: 'no_user_agent', count: 1 },
        { name: 'prefetch', count: 1 },
      ],
      crawlers: [
        { name: 'googlebot', count: 1 },
        { name: 'slackbot', count: 1 },
      ],
    });
    expect(body.totalClicks).toBe(9);
    expect(body.uniqueVisitors).toBe(6);
    expect(body.clicksOverTime).toHaveLength(7);
    expect(body.clicksOverTime.at(-1)).toEqual({ date: today, clicks: 9 });
    expect(body.clicksOverTime.slice(0, 6).every((d: { clicks: number }) => d.clicks === 0)).toBe(true);
    expect(body.referrers).toEqual([
      { name: 'Direct', count: 4 },
      { name: 'https://news.ycombinator.com', count: 3 },
      { name: 'android-app://com.slack', count: 1 },
      { name: 'https://www.google.com', count: 1 },
    ]);
    expect(body.countries).toEqual([
      { name: 'FR', count: 2 },
      { name: 'GB', count: 2 },
      { name: 'US', count: 2 },
      { name: 'DE', count: 1 },
      { name: 'NL', count: 1 },
      { name: 'XX', count: 1 },
    ]);
    expect(body.devices).toEqual([
      { name: 'desktop', count: 5 },
      { name: 'mobile', count: 3 },
      { name: 'tablet', count: 1 },
    ]);
    expect(body.browsers).toEqual([
      { name: 'Chrome', count: 4 },
      { name: 'Safari', count: 3 },
      { name: 'Edge', count: 1 },
      { name: 'Firefox', count: 1 },
    ]);
    expect(body.triggers).toEqual([
      { name: 'link', count: 9 },
      { name: 'qr', count: 0 },
    ]);
  });

  it('never stores a raw IP or a full referrer', async () => {
    const rows = await (
      await system.infra.clickhouse.query({ query: 'SELECT * FROM clicks', format: 'JSONEachRow' })
    ).json<Record<string, unknown>>();
    const text = JSON.stringify(rows);
    for (const ip of ['8.8.8.8', '81.2.69.142', '5.5.5.5', '62.210.16.1', '10.1.2.3', '193.0.0.1']) {
      expect(text).not.toContain(ip);
    }
    expect(text).not.toContain('item?id=42');
    expect(text).not.toContain('search?q=');
  });

  it('answers every range, zero-filled, with `all` starting at the link creation day', async () => {
    expect((await analytics('stats-1', '30d')).json().clicksOverTime).toHaveLength(30);
    const ninety = (await analytics('stats-1', '90d')).json();
    expect(ninety.clicksOverTime).toHaveLength(90);
    expect(ninety.totalClicks).toBe(9);
    const all = (await analytics('stats-1', 'all')).json();
    expect(all.range).toBe('all');
    expect(all.clicksOverTime).toEqual([{ date: today, clicks: 9 }]);
    // A range that holds the link's whole life (it was created today) counts as `all` does.
    expect(all.totalClicks).toBe(9);
    expect(all.uniqueVisitors).toBe(ninety.uniqueVisitors);
    expect(all.uniqueVisitors).toBe(6);
  });

  it('counts a visitor of a range once, however many parts of link_visitors hold it', async () => {
    const linkId = await createdId('spread');
    // Created 60 days ago, so `all` holds every click below; the projection's row first, or it would come later, new.
    await eventually(
      async () =>
        (await system.infra.pool.query('SELECT 1 FROM links WHERE slug = $1', ['spread'])).rowCount || undefined,
      30_000,
      'the projection of spread',
    );
    for (const table of ['links', 'slug_claims']) {
      await system.infra.pool.query(`UPDATE ${table} SET created_at = now() - interval '60 days' WHERE slug = $1`, [
        'spread',
      ]);
    }
    const clickhouse = system.infra.clickhouse;
    // Each insert is a part of its own, kept apart while the API reads: visitors a and b are in
    // several parts, with their last click in one of them; c's only click is outside 30 days.
    await clickhouse.command({ query: 'SYSTEM STOP MERGES link_visitors' });
    try {
      const batches: [visitor: string, days: number][][] = [
        [
          ['a', 20],
          ['b', 20],
          ['c', 40],
        ],
        [
          ['a', 0],
          ['d', 3],
        ],
        [
          ['b', 10],
          ['a', 0],
          ['e', 0],
        ],
      ];
      let i = 0;
      for (const batch of batches) {
        await clickhouse.insert({
          table: 'clicks',
          values: batch.map(([visitor, days]) =>
            clickRow({ id: linkId, slug: 'spread' }, i++, { visitor, daysAgo: days }),
          ),
          format: 'JSONEachRow',
        });
      }
      const parts = await (
        await clickhouse.query({
          query: `SELECT count() AS n FROM system.parts
                   WHERE database = currentDatabase() AND table = 'link_visitors' AND active`,
          format: 'JSONEachRow',
        })
      ).json<{ n: number }>();
      expect(Number(parts[0]?.n)).toBeGreaterThanOrEqual(3);

      const counts = async (range: string) => {
        const body = (await analytics('spread', range)).json();
        return [body.totalClicks, body.uniqueVisitors];
      };
      // 7d and 30d count link_visitors; 90d and `all` hold the link's whole life and read link_uniques.
      expect(await counts('7d')).toEqual([4, 3]); // a twice, d, e
      expect(await counts('30d')).toEqual([7, 4]); // and a, b at 20 days, b at 10 days
      expect(await counts('90d')).toEqual([8, 5]); // and c
      expect(await counts('all')).toEqual([8, 5]);
    } finally {
      await clickhouse.command({ query: 'SYSTEM START MERGES link_visitors' });
    }
  });

  it('counts the visitors of the clicks it counts when clocks disagree across midnight', async () => {
    // (Visitors are hex digits: the tables key them by the hash's first 128 bits.)
    // Clicks are dated by the redirector's clock, the creation by the write API's, today by the
    // analytics process's: a few milliseconds apart across midnight, a click falls on the day
    // before its link's creation, or on tomorrow.
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const backdate = async (slug: string, days: number) => {
      await eventually(
        async () =>
          (await system.infra.pool.query('SELECT 1 FROM links WHERE slug = $1', [slug])).rowCount || undefined,
        30_000,
        `the projection of ${slug}`,
      );
      for (const table of ['links', 'slug_claims']) {
        await system.infra.pool.query(
          `UPDATE ${table} SET created_at = now() - make_interval(days => $2) WHERE slug = $1`,
          [slug, days],
        );
      }
    };
    const insert = (link: { id: string; slug: string }, clicks: [visitor: string, daysAgo: number][], at: number) =>
      system.infra.clickhouse.insert({
        table: 'clicks',
        values: clicks.map(([visitor, daysAgo], i) => clickRow(link, at + i, { visitor, daysAgo })),
        format: 'JSONEachRow',
      });
    const body = async (slug: string, range: string) => {
      const answer = (await analytics(slug, range)).json();
      return {
        totals: [answer.totalClicks, answer.uniqueVisitors],
        days: answer.clicksOverTime.length,
        first: answer.clicksOverTime[0],
        last: answer.clicksOverTime.at(-1),
      };
    };

    // Given a link created 6 days ago, whose first click is dated the day before, and a click today
    const old = { id: await createdId('skew-old'), slug: 'skew-old' };
    await backdate('skew-old', 6);
    await insert(
      old,
      [
        ['a', 7],
        ['b', 0],
      ],
      2000,
    );
    // Then `7d` (from the creation day) counts today's visitor only, and `all` starts on the first click's day
    expect(await body('skew-old', '7d')).toEqual({
      totals: [1, 1],
      days: 7,
      first: { date: day(6), clicks: 0 },
      last: { date: day(0), clicks: 1 },
    });
    expect(await body('skew-old', 'all')).toEqual({
      totals: [2, 2],
      days: 8,
      first: { date: day(7), clicks: 1 },
      last: { date: day(0), clicks: 1 },
    });

    // Given a link created today, with a click dated tomorrow (its redirector's clock ahead)
    const fresh = { id: await createdId('skew-new'), slug: 'skew-new' };
    await insert(
      fresh,
      [
        ['c', -1],
        ['d', 0],
      ],
      2100,
    );
    // Then every range ends on tomorrow, and counts both clicks and both visitors
    expect(await body('skew-new', 'all')).toEqual({
      totals: [2, 2],
      days: 2,
      first: { date: day(0), clicks: 1 },
      last: { date: day(-1), clicks: 1 },
    });
    expect(await body('skew-new', '7d')).toEqual({
      totals: [2, 2],
      days: 7,
      first: { date: day(5), clicks: 0 },
      last: { date: day(-1), clicks: 1 },
    });
  });

  it('lists every device bucket, however many, and the top 10 of the others', async () => {
    const linkId = await createdId('gadgets');
    const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    await system.infra.clickhouse.insert({
      table: 'clicks',
      values: names.map((name, i) =>
        clickRow({ id: linkId, slug: 'gadgets' }, 1000 + i, {
          device: name,
          browser: name,
          referrer: `https://${name}.example`,
          country: 'X' + String.fromCharCode(65 + i),
        }),
      ),
      format: 'JSONEachRow',
    });
    const body = (await analytics('gadgets')).json();
    expect(body.devices.map((b: { name: string }) => b.name)).toEqual(names);
    expect(body.browsers.map((b: { name: string }) => b.name)).toEqual(names.slice(0, 10));
    expect(body.referrers).toHaveLength(10);
    expect(body.countries).toHaveLength(10);
  });

  it('returns the top 10 referrers, ties broken by name', async () => {
    await create('many-refs');
    const origins = Array.from({ length: 12 }, (_, i) => `https://site${String(i).padStart(2, '0')}.example`);
    let total = 0;
    for (const [i, origin] of origins.entries()) {
      // site00 and site01 get 3 visits, the rest 1: ten tie at 1, only eight of them fit.
      const visits = i < 2 ? 3 : 1;
      for (let v = 0; v < visits; v++) await visit('many-refs', UA.chrome, `5.5.5.${i}`, `${origin}/page/${v}`);
      total += visits;
    }
    const body = await settled('many-refs', total);
    expect(body.referrers).toHaveLength(10);
    expect(body.referrers.slice(0, 2)).toEqual([
      { name: 'https://site00.example', count: 3 },
      { name: 'https://site01.example', count: 3 },
    ]);
    expect(body.referrers.slice(2).map((r: { name: string }) => r.name)).toEqual(origins.slice(2, 10));
  });

  it('answers the errors of the endpoint', async () => {
    const invalid = await analytics('stats-1', '1y');
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ error: 'Invalid range', code: 'invalid_range' });
    for (const odd of ['7d&range=30d', '', '7D', '7d%00']) {
      const res = await analytics('stats-1', odd || '&range=');
      expect([res.statusCode, res.json()]).toMatchObject([400, { error: 'Invalid range', code: 'invalid_range' }]);
    }

    const free = await analytics('stats-1', '90d', system.freeKey);
    expect(free.statusCode).toBe(403);
    expect(free.json().code).toBe('plan_upgrade_required');

    // Another account's link is not found, not forbidden.
    const other = await analytics('stats-1', '7d', system.freeKey);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({
      error: 'Link not found',
      code: 'not_found',
      detail: 'This account has no link "stats-1" (or it was deleted).',
    });

    expect((await analytics('no-such-link')).statusCode).toBe(404);
    const anonymous = await system.app.inject({ method: 'GET', url: '/api/v1/links/stats-1/analytics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers a new link with zeros', async () => {
    await create('quiet-one', system.freeKey);
    const body = (await analytics('quiet-one', '30d', system.freeKey)).json();
    expect(body).toMatchObject({
      totalClicks: 0,
      uniqueVisitors: 0,
      referrers: [],
      countries: [],
      devices: [],
      browsers: [],
    });
    expect(body.clicksOverTime).toHaveLength(30);
  });
});

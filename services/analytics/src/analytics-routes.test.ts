import { Readable } from 'node:stream';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { generateApiKey, memoryApiKeys, memoryRateLimiter } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { FastifyInstance } from 'fastify';
import { rangeDays } from './analytics/range';
import { createAnalytics, type AnalyticsDeps } from './app';

/**
 * The read API's routes as a process serves them (buildProcessServer, the
 * real authenticator, rate limiter, query checks and error handler), on
 * in-memory stores: the links as the Postgres reads return them, each with its
 * place in its account's list, and each link's clicks as ClickHouse counts them.
 */

type LinkRecord = NonNullable<Awaited<ReturnType<AnalyticsDeps['findLink']>>>;
type PreviewRecord = NonNullable<Awaited<ReturnType<AnalyticsDeps['findPreview']>>>;
type LinkStats = Awaited<ReturnType<AnalyticsDeps['readStats']>>['stats'];

const BASE_URL = 'https://sho.rt';
const NOW = new Date('2026-11-22T10:00:00.000Z');

/** Three accounts' keys, as the key table holds them. */
const keyTable = memoryApiKeys();
const owner = keyTable.issue('owner', 'pro');
const other = keyTable.issue('other', 'pro');
const free = keyTable.issue('free', 'free');
const unknownKey = generateApiKey();

let made = 0;
function link(slug: string, accountId: string, fields: Partial<LinkRecord> = {}): LinkRecord {
  made++;
  const createdAt = new Date(Date.parse('2026-11-01T08:00:00.000Z') + made * 60_000);
  return {
    linkId: `00000000-0000-4000-8000-${String(made).padStart(12, '0')}`,
    accountId,
    slug,
    domain: null,
    destinationUrl: `https://example.com/${slug}`,
    tag: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
    routing: null,
    ...fields,
  };
}

const STATS: LinkStats = {
  totalClicks: 3,
  uniqueVisitors: 2,
  daily: new Map([
    ['2026-11-21', 1],
    ['2026-11-22', 2],
  ]),
  breakdown: {
    referrer: [
      { name: 'Direct', count: 2 },
      { name: 'https://news.ycombinator.com', count: 1 },
    ],
    country: [{ name: 'DE', count: 3 }],
    device: [
      { name: 'desktop', count: 2 },
      { name: 'mobile', count: 1 },
    ],
    browser: [{ name: 'Chrome', count: 3 }],
    trigger: [
      { name: 'link', count: 2 },
      { name: 'qr', count: 1 },
    ],
  },
  filtered: {
    total: 4,
    reasons: [
      { name: 'crawler', count: 3 },
      { name: 'head', count: 1 },
      { name: 'http_library', count: 0 },
      { name: 'no_user_agent', count: 0 },
      { name: 'prefetch', count: 0 },
    ],
    crawlers: [{ name: 'googlebot', count: 3 }],
  },
  routes: { rule: [], variant: [{ position: 1, clicks: 3, uniqueVisitors: 2 }] },
};

let app: FastifyInstance;
afterEach(() => app?.close());

/** `links` in list order, oldest first (a link's place is its position here); deleted ones are gone from it. */
async function readApi(links: LinkRecord[], more: Partial<AnalyticsDeps> & { pending?: Map<string, string> } = {}) {
  const { pending = new Map<string, string>(), ...overrides } = more;
  const previews = new Map<string, PreviewRecord>();
  const statsRead: { linkId: string; accountId?: string; range: string }[] = [];
  const deps: AnalyticsDeps = {
    authenticate: keyTable.authenticate,
    rateLimiter: memoryRateLimiter({ free: 100, pro: 1000 }),
    exportLimiter: memoryRateLimiter({ free: 100, pro: 1000 }),
    exportClicks: async () => Readable.from([]),
    findLink: async (slug) => links.find((l) => l.slug === slug) ?? null,
    findUnsettledOwner: async (slug) => pending.get(slug) ?? null,
    findPreview: async (linkId) => previews.get(linkId) ?? null,
    listLinks: async ({ accountId, limit, before, tag, search }) =>
      links
        .map((l, i) => ({ l, position: BigInt(i + 1) }))
        .filter(({ l, position }) => l.accountId === accountId && (before === undefined || position < before))
        .filter(({ l }) => tag === undefined || l.tag === tag)
        .filter(
          ({ l }) =>
            search === undefined || `${l.slug} ${l.destinationUrl}`.toLowerCase().includes(search.toLowerCase()),
        )
        .reverse()
        .slice(0, limit)
        .map(({ l }) => l),
    listPosition: async (accountId, linkId) => {
      const i = links.findIndex((l) => l.linkId === linkId && l.accountId === accountId);
      return i === -1 ? null : BigInt(i + 1);
    },
    publicBaseUrl: BASE_URL,
    readStats: async (l, range, now) => {
      statsRead.push({ linkId: l.linkId, accountId: l.accountId, range });
      return { period: rangeDays(range, now, l.createdAt), stats: STATS };
    },
    // The account's analytics have their own tests (account/account-route.test.ts).
    readAccountAnalytics: async () => Promise.reject(new Error('not read here')),
    now: () => NOW,
    ...overrides,
  };
  app = await buildProcessServer(
    [createAnalytics(deps)],
    { name: 'analytics', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  return { previews, statsRead };
}

/** `authorization` null: the request carries none. */
const get = (url: string, authorization: string | null = owner.authorization) =>
  app.inject({ method: 'GET', url, headers: authorization === null ? {} : { authorization } });

describe('GET /api/v1/links/:slug/analytics', () => {
  it('answers 200 with the analytics result of spec 2.2, over 7 days by default', async () => {
    const summer = link('summer', 'account-owner');
    const { statsRead } = await readApi([summer]);
    const res = await get('/api/v1/links/summer/analytics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['ratelimit-remaining']).toBe('999');
    expect(res.json()).toEqual({
      slug: 'summer',
      range: '7d',
      totalClicks: 3,
      uniqueVisitors: 2,
      clicksOverTime: [
        { date: '2026-11-16', clicks: 0 },
        { date: '2026-11-17', clicks: 0 },
        { date: '2026-11-18', clicks: 0 },
        { date: '2026-11-19', clicks: 0 },
        { date: '2026-11-20', clicks: 0 },
        { date: '2026-11-21', clicks: 1 },
        { date: '2026-11-22', clicks: 2 },
      ],
      referrers: [
        { name: 'Direct', count: 2 },
        { name: 'https://news.ycombinator.com', count: 1 },
      ],
      countries: [{ name: 'DE', count: 3 }],
      devices: [
        { name: 'desktop', count: 2 },
        { name: 'mobile', count: 1 },
      ],
      browsers: [{ name: 'Chrome', count: 3 }],
      triggers: [
        { name: 'link', count: 2 },
        { name: 'qr', count: 1 },
      ],
      filtered: STATS.filtered,
      byRule: [],
      byVariant: [{ variant: 1, clicks: 3, uniqueVisitors: 2 }],
    });
    expect(statsRead).toEqual([{ linkId: summer.linkId, accountId: 'account-owner', range: '7d' }]);
  });

  it.each([
    ['30d', 30],
    ['90d', 90],
    ['all', 22],
  ])('answers range=%s with one day per day of the range', async (range, days) => {
    await readApi([link('summer', 'account-owner')]);
    const res = await get(`/api/v1/links/summer/analytics?range=${range}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug: 'summer', range });
    expect(res.json().clicksOverTime).toHaveLength(days);
  });

  it.each([
    ['1y', 'received the string "1y"'],
    ['7D', 'received the string "7D"'],
    ['', 'received the string ""'],
    ['7d&range=30d', 'range given more than once'],
  ])('answers 400 "Invalid range" for range=%s, listing the ranges', async (range, received) => {
    const { statsRead } = await readApi([link('summer', 'account-owner')]);
    const res = await get(`/api/v1/links/summer/analytics?range=${range}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid range',
      code: 'invalid_range',
      field: 'range',
      detail: `range must be one of 7d, 30d, 90d, all; ${received}.`,
    });
    expect(statsRead).toEqual([]);
  });

  it('answers 403 for a range the free plan does not include, and 200 for one it does', async () => {
    await readApi([link('summer', 'account-free')]);
    const res = await get('/api/v1/links/summer/analytics?range=90d', free.authorization);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'The 90d range requires the Pro plan',
      code: 'plan_upgrade_required',
      field: 'range',
      detail: 'This plan (free) reads 7d and 30d.',
    });
    expect((await get('/api/v1/links/summer/analytics?range=30d', free.authorization)).statusCode).toBe(200);
  });

  it('answers 404 for another account’s link, an unknown slug and a path that is no slug, reading no clicks', async () => {
    const { statsRead } = await readApi([link('summer', 'account-owner')]);
    for (const [url, authorization] of [
      ['/api/v1/links/summer/analytics', other.authorization],
      ['/api/v1/links/unknown/analytics', owner.authorization],
      ['/api/v1/links/NOT_A_SLUG/analytics', owner.authorization],
    ] as const) {
      const res = await get(url, authorization);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'Link not found',
        code: 'not_found',
        detail: `This account has no link "${url.split('/')[4]}" (or it was deleted).`,
      });
    }
    expect(statsRead).toEqual([]);
  });

  it('answers 503 with Retry-After for the owner’s link whose creation is not settled; 404 for anyone else', async () => {
    await readApi([], { pending: new Map([['fresh', 'account-owner']]) });
    const res = await get('/api/v1/links/fresh/analytics');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({
      error: 'This link’s creation is not confirmed yet. Try again in a moment.',
      code: 'temporarily_unavailable',
      detail: 'The link was created moments ago and its create is still being confirmed.',
    });
    expect((await get('/api/v1/links/fresh/analytics', other.authorization)).statusCode).toBe(404);
  });
});

describe('GET /api/v1/links/:slug', () => {
  it('answers 200 with the Link object and a pending preview until one is fetched', async () => {
    const summer = link('summer', 'account-owner', { tag: 'newsletter' });
    const { previews } = await readApi([summer]);
    const res = await get('/api/v1/links/summer');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: summer.linkId,
      slug: 'summer',
      shortUrl: 'https://sho.rt/summer',
      destinationUrl: 'https://example.com/summer',
      tag: 'newsletter',
      createdAt: summer.createdAt.toISOString(),
      updatedAt: summer.createdAt.toISOString(),
      rules: [],
      variants: null,
      domain: null,
      preview: { status: 'pending', title: null, description: null, image: null, fetchedAt: null },
    });
    previews.set(summer.linkId, {
      status: 'ready',
      title: 'Summer sale',
      description: null,
      image: null,
      occurredAt: new Date('2026-11-01T08:01:00.500Z'),
      destinationUrl: 'https://example.com/summer',
    });
    expect((await get('/api/v1/links/summer')).json().preview).toEqual({
      status: 'ready',
      title: 'Summer sale',
      description: null,
      image: null,
      fetchedAt: '2026-11-01T08:01:00.500Z',
    });
  });

  it('shows a preview of an earlier destination as pending', async () => {
    const summer = link('summer', 'account-owner', { destinationUrl: 'https://example.com/new', version: 2 });
    const { previews } = await readApi([summer]);
    previews.set(summer.linkId, {
      status: 'ready',
      title: 'Old page',
      description: null,
      image: null,
      occurredAt: NOW,
      destinationUrl: 'https://example.com/old',
    });
    expect((await get('/api/v1/links/summer')).json().preview.status).toBe('pending');
  });

  it('answers 404 for another account’s link and an unknown slug, 503 for its own unsettled one', async () => {
    await readApi([link('summer', 'account-owner')], { pending: new Map([['fresh', 'account-other']]) });
    for (const [slug, authorization] of [
      ['summer', other.authorization],
      ['unknown', other.authorization],
    ] as const) {
      const res = await get(`/api/v1/links/${slug}`, authorization);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'Link not found',
        code: 'not_found',
        detail: `This account has no link "${slug}" (or it was deleted).`,
      });
    }
    expect((await get('/api/v1/links/fresh', other.authorization)).statusCode).toBe(503);
    expect((await get('/api/v1/links/fresh', owner.authorization)).statusCode).toBe(404);
  });
});

describe('GET /api/v1/links', () => {
  it('lists the caller’s links only, newest first, a page at a time', async () => {
    const links = ['one', 'two', 'three', 'four', 'five'].map((slug) => link(slug, 'account-owner'));
    links.splice(2, 0, link('theirs', 'account-other'));
    await readApi(links);
    const first = await get('/api/v1/links?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().links.map((l: { slug: string }) => l.slug)).toEqual(['five', 'four']);
    expect(first.json().links[0]).toEqual({
      id: expect.any(String),
      slug: 'five',
      shortUrl: 'https://sho.rt/five',
      destinationUrl: 'https://example.com/five',
      tag: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      rules: [],
      variants: null,
      domain: null,
    });
    const second = await get(`/api/v1/links?limit=2&cursor=${first.json().nextCursor}`);
    expect(second.json().links.map((l: { slug: string }) => l.slug)).toEqual(['three', 'two']);
    const last = await get(`/api/v1/links?limit=2&cursor=${second.json().nextCursor}`);
    expect(last.json()).toEqual({ links: [expect.objectContaining({ slug: 'one' })], nextCursor: null });
  });

  it('filters by tag and by search text', async () => {
    await readApi([
      link('summer', 'account-owner', { tag: 'sale' }),
      link('winter', 'account-owner', { tag: 'sale' }),
      link('news', 'account-owner', { tag: 'blog' }),
    ]);
    const tagged = await get('/api/v1/links?tag=sale');
    expect(tagged.json().links.map((l: { slug: string }) => l.slug)).toEqual(['winter', 'summer']);
    const searched = await get('/api/v1/links?search=SUM');
    expect(searched.json().links.map((l: { slug: string }) => l.slug)).toEqual(['summer']);
  });

  it.each([
    ['limit=0', 'limit must be a whole number from 1 to 100', 'invalid_limit', 'limit', 'limit was "0".'],
    ['limit=101', 'limit must be a whole number from 1 to 100', 'invalid_limit', 'limit', 'limit was "101".'],
    [
      'cursor=garbled',
      'Invalid cursor: pass nextCursor from a previous page as it is',
      'invalid_cursor',
      'cursor',
      'cursor is not a nextCursor of this list.',
    ],
    ['tag=', 'tag must be 1-100 characters without control characters', 'invalid_tag', 'tag', 'tag was "".'],
    [
      'search=a&search=b',
      'search must be 1-200 characters without control characters',
      'invalid_search',
      'search',
      'search was given more than once.',
    ],
  ])('answers 400 for %s, naming the parameter', async (query, error, code, field, detail) => {
    await readApi([link('summer', 'account-owner')]);
    const res = await get(`/api/v1/links?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error, code, field, detail });
  });

  it('answers 400 for a cursor on another account’s link', async () => {
    await readApi([link('a1', 'account-other'), link('a2', 'account-other'), link('mine', 'account-owner')]);
    const theirs = (await get('/api/v1/links?limit=1', other.authorization)).json().nextCursor;
    expect(theirs).toEqual(expect.any(String));
    const res = await get(`/api/v1/links?cursor=${theirs}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_cursor');
  });
});

describe('authentication on every route', () => {
  it.each(['/api/v1/links', '/api/v1/links/summer', '/api/v1/links/summer/analytics', '/api/v1/account'])(
    'GET %s answers 401 with WWW-Authenticate without a key, or with one unknown or malformed',
    async (url) => {
      const { statsRead } = await readApi([link('summer', 'account-owner')]);
      for (const [authorization, detail] of [
        [null, 'No Authorization header: send Authorization: Bearer <API key>.'],
        [`Bearer ${unknownKey.key}`, 'This API key is not known, or it has been revoked.'],
        ['Bearer not-a-key', 'The Authorization header holds no API key of this service’s form.'],
        [`Basic ${unknownKey.key}`, 'The Authorization header is not "Bearer <API key>".'],
      ] as const) {
        const res = await get(url, authorization);
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect(res.json()).toEqual({ error: 'Unauthorized', code: 'unauthorized', detail });
      }
      expect(statsRead).toEqual([]);
    },
  );
});

describe('GET /api/v1/links/:slug/qr', () => {
  /** What a phone's camera reads from the image. */
  const decodedPng = (png: Buffer): string | undefined => {
    const image = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  };

  it('answers an SVG by default and a PNG on asking, each encoding the short URL with the scan marker', async () => {
    // Given the owner's link
    await readApi([link('summer', 'account-owner')]);
    // When its QR code is asked for, as SVG and as PNG
    const svg = await get('/api/v1/links/summer/qr');
    const png = await get('/api/v1/links/summer/qr?format=png&size=200&margin=2');
    // Then the SVG is a self-contained image
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['content-disposition']).toBe('inline; filename="summer-qr.svg"');
    expect(svg.body).toMatch(/^<svg [^>]*viewBox/);
    expect(svg.body).not.toMatch(/<script|href=|on[a-z]+=/i);
    // And the PNG is the size asked, and reads back as the short URL with the marker
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['content-disposition']).toBe('inline; filename="summer-qr.png"');
    expect(PNG.sync.read(png.rawPayload).width).toBe(200);
    expect(decodedPng(png.rawPayload)).toBe('https://sho.rt/summer?qr=1');
  });

  it("is a 404 for another account's link, an unknown slug and no slug at all, alike", async () => {
    await readApi([link('summer', 'account-owner')]);
    for (const [url, key] of [
      ['/api/v1/links/summer/qr', other.authorization],
      ['/api/v1/links/winter/qr', owner.authorization],
      ['/api/v1/links/a%2Fb/qr', owner.authorization],
    ] as const) {
      const res = await get(url, key);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'Link not found' });
    }
  });

  it('refuses a format, size or margin it cannot draw with a 400 naming the parameter, before looking up the link', async () => {
    await readApi([link('summer', 'account-owner')]);
    const cases: [string, string, string][] = [
      ['format=gif', 'invalid_qr_format', 'format'],
      ['format=SVG', 'invalid_qr_format', 'format'],
      ['format=svg&format=png', 'invalid_qr_format', 'format'],
      ['size=63', 'invalid_qr_size', 'size'],
      ['size=2049', 'invalid_qr_size', 'size'],
      ['size=1e3', 'invalid_qr_size', 'size'],
      ['size=', 'invalid_qr_size', 'size'],
      ['size=0300', 'invalid_qr_size', 'size'],
      ['margin=-1', 'invalid_qr_margin', 'margin'],
      ['margin=17', 'invalid_qr_margin', 'margin'],
      ['margin=2.5', 'invalid_qr_margin', 'margin'],
    ];
    for (const [query, code, field] of cases) {
      const res = await get(`/api/v1/links/winter/qr?${query}`);
      expect([query, res.statusCode, res.json()]).toMatchObject([query, 400, { code, field }]);
      expect(res.json<{ detail: string }>().detail).toMatch(new RegExp(`^${field} `));
    }
    // Parameters it does not know are ignored, as the list's are
    expect((await get('/api/v1/links/summer/qr?colour=red')).statusCode).toBe(200);
  });

  it('asks for a key', async () => {
    await readApi([link('summer', 'account-owner')]);
    expect((await get('/api/v1/links/summer/qr', null)).statusCode).toBe(401);
  });
});

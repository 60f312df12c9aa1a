import { generateApiKey, memoryApiKeys, memoryRateLimiter } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { FastifyInstance } from 'fastify';
import { createAnalytics, type AnalyticsDeps } from '../app';
import type { AccountAnalyticsRequest } from './account-analytics';

/**
 * GET /api/v1/analytics as a process serves it (the real authenticator, rate
 * limiter, checks and error handler), its reads in memory: what reaches the
 * read, and what every refused request looks like.
 */

const keyTable = memoryApiKeys();
const pro = keyTable.issue('pro', 'pro');
const free = keyTable.issue('free', 'free');

let app: FastifyInstance;
afterEach(() => app?.close());

async function readApi(
  rows = [
    { name: 'summer', linkId: '00000000-0000-4000-8000-000000000001', clicks: 4, uniqueVisitors: 3 },
    { name: 'winter', linkId: '00000000-0000-4000-8000-000000000002', clicks: 1, uniqueVisitors: 1 },
  ],
) {
  const reads: AccountAnalyticsRequest[] = [];
  const notHere = async () => Promise.reject(new Error('not read here'));
  const deps: AnalyticsDeps = {
    authenticate: keyTable.authenticate,
    rateLimiter: memoryRateLimiter({ free: 100, pro: 1000 }),
    exportLimiter: memoryRateLimiter({ free: 100, pro: 1000 }),
    exportClicks: notHere,
    findLink: notHere,
    findUnsettledOwner: notHere,
    findPreview: notHere,
    listLinks: notHere,
    listPosition: notHere,
    publicBaseUrl: 'https://sho.rt',
    readStats: notHere,
    readAccountAnalytics: async (request) => {
      reads.push(request);
      return {
        from: '2026-11-16',
        to: '2026-11-22',
        stats: {
          totalClicks: 5,
          uniqueVisitors: 3,
          rows,
        },
      };
    },
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  app = await buildProcessServer(
    [createAnalytics(deps)],
    { name: 'analytics', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  return reads;
}

const get = (query: string, authorization: string | null = pro.authorization) =>
  app.inject({ method: 'GET', url: `/api/v1/analytics${query}`, headers: authorization ? { authorization } : {} });

describe('GET /api/v1/analytics', () => {
  it('answers the account of the key, over 7 days by link and 10 rows by default', async () => {
    const reads = await readApi();
    const res = await get('');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      range: '7d',
      from: '2026-11-16',
      to: '2026-11-22',
      totalClicks: 5,
      uniqueVisitors: 3,
      groupBy: 'link',
      rows: [
        { name: 'summer', linkId: '00000000-0000-4000-8000-000000000001', clicks: 4, uniqueVisitors: 3 },
        { name: 'winter', linkId: '00000000-0000-4000-8000-000000000002', clicks: 1, uniqueVisitors: 1 },
      ],
    });
    expect(reads).toEqual([{ accountId: pro.active.account.id, range: '7d', groupBy: 'link', limit: 10 }]);
  });

  it.each(['link', 'tag', 'country', 'referrer', 'device', 'browser', 'domain', 'day'])(
    'takes groupBy=%s, with a range and a limit',
    async (groupBy) => {
      const reads = await readApi();
      expect((await get(`?groupBy=${groupBy}&range=all&limit=100`)).statusCode).toBe(200);
      expect(reads).toEqual([{ accountId: pro.active.account.id, range: 'all', groupBy, limit: 100 }]);
    },
  );

  it('names the installation’s own domain by its host in groupBy=domain (ClickHouse holds it as "")', async () => {
    await readApi([
      { name: '', clicks: 3, uniqueVisitors: 2 },
      { name: 'go.example.com', clicks: 2, uniqueVisitors: 1 },
    ] as never);
    expect((await get('?groupBy=domain')).json().rows).toEqual([
      { name: 'sho.rt', clicks: 3, uniqueVisitors: 2 },
      { name: 'go.example.com', clicks: 2, uniqueVisitors: 1 },
    ]);
  });

  it('never takes the account from the request', async () => {
    const reads = await readApi();
    const other = '00000000-0000-4000-8000-0000000000ff';
    expect((await get(`?accountId=${other}&account=${other}&account_id=${other}`)).statusCode).toBe(200);
    expect(reads).toEqual([{ accountId: pro.active.account.id, range: '7d', groupBy: 'link', limit: 10 }]);
  });

  it.each([
    ['groupBy=links', 'it was "links"'],
    ['groupBy=', 'it was ""'],
    ['groupBy=Tag', 'it was "Tag"'],
    ['groupBy=tag&groupBy=link', 'it was given more than once'],
  ])('answers 400 invalid_group_by for %s, listing the groupings', async (query, received) => {
    const reads = await readApi();
    const res = await get(`?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'groupBy must be one of link, tag, country, referrer, device, browser, domain, day',
      code: 'invalid_group_by',
      field: 'groupBy',
      detail: `groupBy must be one of link, tag, country, referrer, device, browser, domain, day; ${received}.`,
    });
    expect(reads).toEqual([]);
  });

  it.each([
    ['0', 'limit was "0"'],
    ['101', 'limit was "101"'],
    ['1.5', 'limit was "1.5"'],
    ['ten', 'limit was "ten"'],
    ['5&limit=6', 'limit was given more than once'],
  ])('answers 400 invalid_limit for limit=%s, as the list does', async (limit, detail) => {
    const reads = await readApi();
    const res = await get(`?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'limit must be a whole number from 1 to 100',
      code: 'invalid_limit',
      field: 'limit',
      detail: `${detail}.`,
    });
    expect(reads).toEqual([]);
  });

  it.each([
    ['1y', 'received the string "1y"'],
    ['7d&range=30d', 'range given more than once'],
  ])('answers 400 invalid_range for range=%s with the text of a link’s analytics', async (range, received) => {
    const reads = await readApi();
    const res = await get(`?range=${range}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Invalid range',
      code: 'invalid_range',
      field: 'range',
      detail: `range must be one of 7d, 30d, 90d, all; ${received}.`,
    });
    expect(reads).toEqual([]);
  });

  it('answers 403 plan_upgrade_required for a range the free plan does not read, and 200 for one it does', async () => {
    const reads = await readApi();
    const res = await get('?range=90d&groupBy=tag', free.authorization);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'The 90d range requires the Pro plan',
      code: 'plan_upgrade_required',
      field: 'range',
      detail: 'This plan (free) reads 7d and 30d.',
    });
    expect((await get('?range=30d', free.authorization)).statusCode).toBe(200);
    expect(reads).toEqual([{ accountId: free.active.account.id, range: '30d', groupBy: 'link', limit: 10 }]);
  });

  it('answers 401 without a key or with an unknown one, reading nothing', async () => {
    const reads = await readApi();
    expect((await get('', null)).statusCode).toBe(401);
    expect((await get('', `Bearer ${generateApiKey().key}`)).statusCode).toBe(401);
    expect(reads).toEqual([]);
  });
});

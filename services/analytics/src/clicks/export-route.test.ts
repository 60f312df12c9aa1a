import { Readable } from 'node:stream';
import { memoryApiKeys, memoryRateLimiter } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { FastifyInstance } from 'fastify';
import { clickExportRoutes, type ClickExportDeps } from './export-route';
import type { ExportQuery } from './export-query';

/**
 * The export's checks as a process serves them (buildProcessServer, the real authenticator, rate limiters and error
 * handler); ClickHouse is a recorder of the query it would be sent. Its streaming is test/click-export.int.test.ts's.
 */

const NOW = new Date('2026-11-22T10:00:00.000Z');
const keyTable = memoryApiKeys();
const pro = keyTable.issue('pro', 'pro');
const free = keyTable.issue('free', 'free');
const CURSOR = '00000000-0000-4000-8000-000000000001.1795253401250.00000000-0000-4000-8000-000000000002';

let app: FastifyInstance;
afterEach(() => app?.close());

async function exportApi(overrides: Partial<ClickExportDeps> = {}) {
  const asked: ExportQuery[] = [];
  const deps: ClickExportDeps = {
    authenticate: keyTable.authenticate,
    rateLimiter: memoryRateLimiter({ free: 1000, pro: 1000 }),
    exportLimiter: memoryRateLimiter({ free: 1000, pro: 1000 }),
    exportClicks: async (query) => {
      asked.push(query);
      return Readable.from([Buffer.from('{"event_id":"x"}\n')]);
    },
    now: () => NOW,
    ...overrides,
  };
  app = await buildProcessServer(
    [{ name: 'analytics', routes: async (server) => clickExportRoutes(server, deps) }],
    { name: 'analytics', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  return asked;
}

const get = (query: string, authorization = pro.authorization) =>
  app.inject({ method: 'GET', url: `/api/v1/clicks/export${query}`, headers: { authorization } });

describe('GET /api/v1/clicks/export', () => {
  it('streams the caller’s account only, with the format’s type and a file name', async () => {
    const asked = await exportApi();
    const res = await get('?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00%2B01:00&format=csv&slug=launch');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="clicks-20261101T000000Z-20261101T230000Z.csv"',
    );
    expect(res.body).toBe('{"event_id":"x"}\n');
    expect(asked).toEqual([
      {
        accountId: 'account-pro',
        format: 'csv',
        from: new Date('2026-11-01T00:00:00Z'),
        to: new Date('2026-11-01T23:00:00Z'),
        slug: 'launch',
        tag: undefined,
        after: undefined,
        limit: undefined,
      },
    ]);
  });

  it('defaults to NDJSON of the plan’s whole range up to now, and reads a cursor and a tag', async () => {
    const asked = await exportApi();
    const res = await get(`?after=${CURSOR}&tag=spring&limit=10`, free.authorization);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(asked[0]).toMatchObject({
      accountId: 'account-free',
      format: 'ndjson',
      from: new Date('2026-10-24T00:00:00Z'),
      to: NOW,
      tag: 'spring',
      after: {
        linkId: '00000000-0000-4000-8000-000000000001',
        clickedAtMs: 1795253401250,
        eventId: '00000000-0000-4000-8000-000000000002',
      },
      limit: 10,
    });
  });

  it.each([
    ['?format=xlsx', 400, 'invalid_export_format', 'format'],
    ['?format=ndjson&format=csv', 400, 'invalid_export_format', 'format'],
    ['?from=yesterday', 400, 'invalid_time', 'from'],
    ['?from=2026-11-01', 400, 'invalid_time', 'from'],
    ['?from=2026-02-30T00:00:00Z', 400, 'invalid_time', 'from'],
    ['?from=2026-11-01T00:00:00', 400, 'invalid_time', 'from'],
    ['?to=1969-12-31T23:59:59Z', 400, 'invalid_time', 'to'],
    ['?from=9999-01-01T00:00:00Z', 400, 'invalid_time', 'from'],
    ['?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 400, 'invalid_time', 'to'],
    ['?from=2026-11-01T00:00:00Z&to=2026-11-01T00:00:00Z', 400, 'invalid_time', 'to'],
    ['?after=abc', 400, 'invalid_export_cursor', 'after'],
    [`?after=${CURSOR}x`, 400, 'invalid_export_cursor', 'after'],
    [`?after=${CURSOR.replace('1795253401250', '99999999999999999')}`, 400, 'invalid_export_cursor', 'after'],
    ["?after=' OR 1=1 --", 400, 'invalid_export_cursor', 'after'],
    ['?limit=0', 400, 'invalid_limit', 'limit'],
    ['?limit=1e3', 400, 'invalid_limit', 'limit'],
    ['?limit=100000001', 400, 'invalid_limit', 'limit'],
    ["?slug=a'b", 400, 'invalid_slug', 'slug'],
    ['?tag=', 400, 'invalid_tag', 'tag'],
    ['?tag=a%00b', 400, 'invalid_tag', 'tag'],
  ])('answers %s with %i %s naming the parameter', async (query, status, code, field) => {
    const asked = await exportApi();
    const res = await get(query);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: expect.any(String), code, detail: expect.any(String), field });
    expect(asked).toEqual([]);
  });

  it('keeps the free plan to its 30 days, and lets Pro read every click', async () => {
    const asked = await exportApi();
    const old = '?from=2026-10-23T23:59:59Z';
    const refused = await get(old, free.authorization);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'plan_upgrade_required', field: 'from' });
    expect((await get('?from=2026-10-24T00:00:00Z', free.authorization)).statusCode).toBe(200);
    expect((await get(old)).statusCode).toBe(200);
    expect((await get('')).statusCode).toBe(200);
    expect(asked.at(-1)?.from).toEqual(new Date('1970-01-01T00:00:00Z'));
  });

  it('counts exports per account apart from requests: 429 with Retry-After past the plan’s', async () => {
    const asked = await exportApi({ exportLimiter: memoryRateLimiter({ free: 2, pro: 5 }, 3600) });
    expect((await get('', free.authorization)).statusCode).toBe(200);
    expect((await get('', free.authorization)).statusCode).toBe(200);
    const limited = await get('', free.authorization);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
    expect((await get('')).statusCode).toBe(200);
    expect(asked).toHaveLength(3);
  });

  it('answers 401 without a key, before counting an export', async () => {
    await exportApi();
    const res = await app.inject({ method: 'GET', url: '/api/v1/clicks/export' });
    expect(res.statusCode).toBe(401);
  });
});

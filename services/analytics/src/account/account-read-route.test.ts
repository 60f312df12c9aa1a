import { memoryApiKeys, memoryRateLimiter, PLANS } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { FastifyInstance } from 'fastify';
import { createAnalytics, type AnalyticsDeps } from '../app';

/** `GET /api/v1/account` as the process serves it (the real authenticator and rate limiter), with no store behind it. */
const keyTable = memoryApiKeys();
const pro = keyTable.issue('acme', 'pro');
const free = keyTable.issue('corner-shop', 'free');

const untouched = (): never => {
  throw new Error('the account read touches no store');
};

let app: FastifyInstance;
beforeAll(async () => {
  const deps: AnalyticsDeps = {
    authenticate: keyTable.authenticate,
    rateLimiter: memoryRateLimiter({ free: 60, pro: 3000 }),
    exportLimiter: memoryRateLimiter({ free: 60, pro: 3000 }),
    exportClicks: untouched,
    findLink: untouched,
    findUnsettledOwner: untouched,
    findPreview: untouched,
    listLinks: untouched,
    listPosition: untouched,
    readStats: untouched,
    readAccountAnalytics: untouched,
    publicBaseUrl: 'https://sho.rt',
    now: () => new Date(),
  };
  app = await buildProcessServer(
    [createAnalytics(deps)],
    { name: 'analytics', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
});
afterAll(() => app.close());

const read = (authorization?: string) =>
  app.inject({ method: 'GET', url: '/api/v1/account', headers: authorization ? { authorization } : {} });

describe('GET /api/v1/account', () => {
  it("answers the key's account, its plan and the analytics ranges that plan reads", async () => {
    const res = await read(free.authorization);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('60');
    expect(res.json()).toEqual({
      accountId: 'account-corner-shop',
      name: 'corner-shop',
      plan: 'free',
      analyticsRanges: ['7d', '30d'],
      minCustomSlugLength: 4,
    });
  });

  it("answers a pro key with every range, each as its plan's table has it", async () => {
    const res = await read(pro.authorization);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      accountId: 'account-acme',
      name: 'acme',
      plan: 'pro',
      analyticsRanges: [...PLANS.pro.analyticsRanges],
      minCustomSlugLength: PLANS.pro.minCustomSlugLength,
    });
    expect(res.json().analyticsRanges).toEqual(['7d', '30d', '90d', 'all']);
  });

  it('asks for a key, as every route of the API', async () => {
    const res = await read();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json().code).toBe('unauthorized');
  });
});

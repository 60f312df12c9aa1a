import { Redis } from 'ioredis';
import { createServer, HttpError } from '@shortlink/http';
import { generateApiKey } from './api-key';
import { createAuthenticator, requireApiKey } from './authenticator';
import { memoryRateLimiter, rateLimitHeaders, redisRateLimiter, type PlanRateLimits } from './rate-limit';
import type { Account } from './store';

const LIMITS: PlanRateLimits = { free: 60, pro: 3000 };

async function takeMany<T extends { allowed: boolean }>(n: number, take: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < n; i++) answers.push(await take());
  return answers;
}

describe('the rate limit of a key', () => {
  it('given a free key, when it makes 61 requests within a minute, then 60 pass and the 61st is refused', async () => {
    const limiter = memoryRateLimiter(LIMITS);

    const answers = await takeMany(61, () => limiter.take('key-a', 'free'));

    expect(answers.slice(0, 60).every((a) => a.allowed)).toBe(true);
    expect(answers[0]).toMatchObject({ limit: 60, remaining: 59 });
    expect(answers[59]).toMatchObject({ allowed: true, remaining: 0 });
    const refused = answers[60]!;
    expect(refused).toMatchObject({ allowed: false, limit: 60, remaining: 0 });
  });

  it('given a refused free key, then its window ends within the minute', async () => {
    const limiter = memoryRateLimiter(LIMITS);
    await takeMany(60, () => limiter.take('key-a', 'free'));

    const refused = await limiter.take('key-a', 'free');

    expect(refused.allowed).toBe(false);
    expect(refused.resetMs).toBeGreaterThan(0);
    expect(refused.resetMs).toBeLessThanOrEqual(60_000);
  });

  it('given one key over its limit, then another key, even of the same account and plan, is unaffected', async () => {
    const limiter = memoryRateLimiter(LIMITS);
    await takeMany(61, () => limiter.take('key-a', 'free'));

    expect(await limiter.take('key-b', 'free')).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('given a pro key, then it gets the pro limit', async () => {
    const limiter = memoryRateLimiter(LIMITS);

    const answers = await takeMany(3001, () => limiter.take('key-p', 'pro'));

    expect(answers.filter((a) => a.allowed)).toHaveLength(3000);
    expect(answers[3000]).toMatchObject({ allowed: false, limit: 3000 });
  });
});

describe('a limiter of another policy (exports an hour)', () => {
  const unreachable = () => new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });
  const EXPORTS = { name: 'export', windowSeconds: 3600, limits: { free: 2, pro: 5 } };

  it('given a limiter, then its sibling counts apart, with its own limits and window', async () => {
    const requests = memoryRateLimiter(LIMITS);
    const exports = requests.withPolicy(EXPORTS);

    const answers = await takeMany(3, () => exports.take('acc-a', 'free'));

    expect(answers.map((a) => a.allowed)).toEqual([true, true, false]);
    expect(answers[2]!.resetMs).toBeGreaterThan(3_500_000);
    expect(await requests.take('acc-a', 'free')).toMatchObject({ allowed: true, remaining: 59 });
    expect(await exports.take('acc-a', 'pro')).toMatchObject({ allowed: true, limit: 5 });
  });

  it('given Redis down, then the sibling counts in memory by its own policy', async () => {
    const limiter = redisRateLimiter({ redis: unreachable(), limits: LIMITS, onStoreError: () => undefined });
    const exports = limiter.withPolicy(EXPORTS);

    const answers = await takeMany(3, () => exports.take('acc-a', 'free'));

    expect(answers.map((a) => [a.allowed, a.limit])).toEqual([
      [true, 2],
      [true, 2],
      [false, 2],
    ]);
    await exports.close();
    await limiter.close();
  });

  it('refuses a name that would reach into another count', () => {
    const limiter = redisRateLimiter({ redis: unreachable(), limits: LIMITS, onStoreError: () => undefined });
    expect(() => limiter.withPolicy({ ...EXPORTS, name: 'free:x' })).toThrow(/policy name/);
    void limiter.close();
  });
});

describe('the rate-limit headers', () => {
  it('given an allowed request, then they tell the limit, what is left and when the window ends, in whole seconds rounded up', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 60, remaining: 12, resetMs: 41_200 })).toEqual({
      'ratelimit-limit': '60',
      'ratelimit-remaining': '12',
      'ratelimit-reset': '42',
      'ratelimit-policy': '60;w=60',
    });
  });

  it('given a refused request, then Retry-After tells the same seconds, never 0', () => {
    const headers = rateLimitHeaders({ allowed: false, limit: 60, remaining: 0, resetMs: 3 });
    expect(headers['retry-after']).toBe('1');
    expect(headers['ratelimit-reset']).toBe('1');
    expect(headers['ratelimit-remaining']).toBe('0');
  });
});

describe('the Redis store, when it cannot answer', () => {
  // Never connected (lazyConnect), so every command fails at once, as while Redis is down.
  const unreachable = () => new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });

  it('given Redis down, then requests are counted in this process: still limited, never refused for the outage', async () => {
    const errors: unknown[] = [];
    const limiter = redisRateLimiter({ redis: unreachable(), limits: LIMITS, onStoreError: (e) => errors.push(e) });

    const answers = await takeMany(61, () => limiter.take('key-a', 'free'));

    expect(answers.filter((a) => a.allowed)).toHaveLength(60);
    expect(answers[60]).toMatchObject({ allowed: false });
    expect(errors.length).toBeGreaterThan(0);
  });

  it('given Redis down, then it is tried again once a second, not on every request', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const limiter = redisRateLimiter({
      redis: unreachable(),
      limits: LIMITS,
      onStoreError: (e) => errors.push(e),
      retryAfterMs: 1000,
      now: () => now,
    });

    await takeMany(10, () => limiter.take('key-a', 'free'));
    expect(errors).toHaveLength(1);
    now += 1000;
    await limiter.take('key-a', 'free');
    expect(errors).toHaveLength(2);
  });
});

describe('requireApiKey with a rate limit', () => {
  const account: Account = { id: 'acc', name: 'Acme', plan: 'free' };
  const { key, hash } = generateApiKey();

  function build(limits: PlanRateLimits = { free: 2, pro: 10 }) {
    const authenticate = createAuthenticator({
      findKeyByHash: async (h) => (h.equals(hash) ? { keyId: 'key-1', account } : null),
      now: Date.now,
      cacheTtlMs: 1000,
      cacheSize: 10,
    });
    const app = createServer({ logger: false, trustProxy: false });
    app.decorateRequest('account', null);
    const onRequest = requireApiKey(authenticate, memoryRateLimiter(limits));
    app.get('/ok', { onRequest }, async () => ({ ok: true }));
    app.get('/refused', { onRequest }, async () => {
      throw new HttpError(404, 'Link not found', 'not_found', { detail: 'No such link.' });
    });
    return app;
  }
  const auth = { authorization: `Bearer ${key}` };

  it('given a key within its limit, then every answer carries the headers, errors of the route included', async () => {
    const app = build();

    const ok = await app.inject({ method: 'GET', url: '/ok', headers: auth });
    const notFound = await app.inject({ method: 'GET', url: '/refused', headers: auth });

    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
    expect(notFound.headers['retry-after']).toBeUndefined();
  });

  it('given a key past its limit, then 429 with the JSON error body, Retry-After and the headers', async () => {
    const app = build();
    await app.inject({ method: 'GET', url: '/ok', headers: auth });
    await app.inject({ method: 'GET', url: '/ok', headers: auth });

    const refused = await app.inject({ method: 'GET', url: '/ok', headers: auth });

    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Too many requests: this API key is over its rate limit. Try again after Retry-After seconds.',
      code: 'rate_limit_exceeded',
      detail: `This API key's free plan allows 2 requests a minute; the next is taken in ${refused.headers['retry-after']} s.`,
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
    expect(refused.headers['ratelimit-reset']).toBe(refused.headers['retry-after']);
  });

  it('given two Authorization lines, valid keys both, then 401: Node would keep the first', async () => {
    const app = build({ free: 10, pro: 10 });

    for (const twice of [
      [`Bearer ${key}`, `Bearer ${key}`],
      [`Bearer ${key}`, `Bearer ${generateApiKey().key}`],
    ]) {
      // Two lines of one header, as light-my-request sends an array (its types allow only one here).
      const headers = { authorization: twice } as unknown as Record<string, string>;
      const res = await app.inject({ method: 'GET', url: '/ok', headers });
      expect([res.statusCode, res.json()]).toEqual([
        401,
        {
          error: 'Unauthorized',
          code: 'unauthorized',
          detail: 'The request has more than one Authorization header: send one.',
        },
      ]);
    }
    expect((await app.inject({ method: 'GET', url: '/ok', headers: auth })).statusCode).toBe(200);
  });

  it('given no valid key, then 401 without rate-limit headers, and nothing is counted', async () => {
    const app = build();

    const anonymous = await app.inject({ method: 'GET', url: '/ok', headers: { authorization: 'Bearer nope' } });
    const ok = await app.inject({ method: 'GET', url: '/ok', headers: auth });

    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-limit']).toBeUndefined();
    expect(ok.headers['ratelimit-remaining']).toBe('1');
  });
});

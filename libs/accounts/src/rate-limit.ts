/**
 * Rate limits per API key (docs/decisions/0052-rate-limits-per-key.md). Each key may make its
 * plan's number of requests per one-minute window; the window starts at the
 * key's first request and its count is dropped when it ends (a fixed window,
 * rate-limiter-flexible's, in Redis or in memory). Every request counts one,
 * a bulk create included, and so does one that is refused: a client that
 * keeps sending past its limit does not get its window back sooner.
 */
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { HTTP_ERRORS, HttpError } from '@shortlink/http';
import { PLAN_NAMES, type Plan } from './plans';

export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** Requests per window, by plan. */
export type PlanRateLimits = Record<Plan, number>;

/** Where a key's count stands once a request is counted. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The plan's requests per window. */
  limit: number;
  /** Requests left in this window. */
  remaining: number;
  /** Until the window ends and the count starts again. */
  resetMs: number;
}

export interface RateLimiter {
  /** Counts one request of the key. Never fails for the store's sake: see redisRateLimiter. */
  take(keyId: string, plan: Plan): Promise<RateLimitDecision>;
  /**
   * A limiter of something rarer than requests (exports), counted the same way in the same store under its own name
   * and window. Closing the parent closes it.
   */
  withPolicy(policy: RateLimitPolicy): RateLimiter;
  close(): Promise<void>;
}

/** What a `withPolicy` limiter counts: `limits[plan]` per `windowSeconds`, apart from every other count. */
export interface RateLimitPolicy {
  /** Part of the store's key: `[a-z-]+`. */
  name: string;
  windowSeconds: number;
  limits: PlanRateLimits;
}

/**
 * The response headers of a decision: the IETF draft's `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the window ends) and
 * `RateLimit-Policy`, and on a refusal `Retry-After` (the same seconds).
 * Seconds are rounded up, so a client that waits them is never early.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const reset = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': reset,
    'ratelimit-policy': `${decision.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`,
  };
  if (!decision.allowed) headers['retry-after'] = reset;
  return headers;
}

/**
 * Counts the request of an authenticated key: its headers go on the response
 * whatever the route answers, and past the limit the answer is a 429.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  keyId: string,
  plan: Plan,
  reply: FastifyReply,
): Promise<void> {
  const decision = await limiter.take(keyId, plan);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    const { status, error, code } = HTTP_ERRORS.rateLimited;
    const detail = `This API key's ${plan} plan allows ${decision.limit} requests a minute; the next is taken in ${headers['retry-after']} s.`;
    throw new HttpError(status, error, code, { detail }, headers);
  }
  void reply.headers(headers);
}

function perPlan(limits: PlanRateLimits, make: (plan: Plan, points: number) => RateLimiterAbstract) {
  return Object.fromEntries(PLAN_NAMES.map((plan) => [plan, make(plan, limits[plan])])) as Record<
    Plan,
    RateLimiterAbstract
  >;
}

/** Consumes one point; a refusal is an answer, anything else thrown is the store failing. */
async function consumeOne(limiter: RateLimiterAbstract, limit: number, keyId: string): Promise<RateLimitDecision> {
  let allowed = true;
  let res: RateLimiterRes;
  try {
    res = await limiter.consume(keyId, 1);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    allowed = false;
    res = e;
  }
  return { allowed, limit, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
}

/** Counts in this process's memory: right for one process (`npm start`), and the fallback of the Redis one. */
export function memoryRateLimiter(limits: PlanRateLimits, windowSeconds = RATE_LIMIT_WINDOW_SECONDS): RateLimiter {
  const limiters = perPlan(limits, (_plan, points) => new RateLimiterMemory({ points, duration: windowSeconds }));
  return {
    take: (keyId, plan) => consumeOne(limiters[plan], limits[plan], keyId),
    withPolicy: (policy) => memoryRateLimiter(policy.limits, policy.windowSeconds),
    close: async () => undefined,
  };
}

export interface RedisRateLimiterOptions {
  redis: Redis;
  limits: PlanRateLimits;
  /** Called for every request the store could not count. */
  onStoreError: (err: unknown) => void;
  /** After a store error, how long requests are counted in memory before Redis is tried again. */
  retryAfterMs?: number;
  now?: () => number;
  /** Another count than the requests' (see RateLimiter.withPolicy); the requests' when unset. */
  policy?: RateLimitPolicy;
}

/** Where the shared counts live in Redis: one key per API key and plan, gone when its window ends. */
export const REDIS_KEY_PREFIX = 'shortlink:ratelimit';

/**
 * Counts in Redis, so every process shares each key's count (one Lua script a request: SET NX with the window's expiry,
 * INCR). A store outage must not take the API down: while Redis cannot answer in the command timeout, each process
 * counts in its own memory, so a key gets up to its limit from every process, never less and never unlimited. Redis is
 * tried again after `retryAfterMs`: a hung Redis costs one timeout a second, not one a request.
 */
export function redisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis, onStoreError, policy } = options;
  const limits = policy?.limits ?? options.limits;
  const windowSeconds = policy?.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const now = options.now ?? Date.now;
  const shared = perPlan(
    limits,
    (plan, points) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: policy ? `${REDIS_KEY_PREFIX}:${policy.name}:${plan}` : `${REDIS_KEY_PREFIX}:${plan}`,
        points,
        duration: windowSeconds,
        // Fail at once rather than queue while the connection is down.
        rejectIfRedisNotReady: true,
        // A key over its limit is refused from memory until its window ends: a flood costs Redis nothing.
        inMemoryBlockOnConsumed: points + 1,
      }),
  );
  const local = memoryRateLimiter(limits, windowSeconds);
  let localUntil = 0;
  return {
    async take(keyId, plan) {
      if (now() < localUntil) return local.take(keyId, plan);
      try {
        return await consumeOne(shared[plan], limits[plan], keyId);
      } catch (err) {
        localUntil = now() + retryAfterMs;
        onStoreError(err);
        return local.take(keyId, plan);
      }
    },
    withPolicy: (other) => {
      if (!/^[a-z-]+$/.test(other.name)) throw new Error(`Invalid rate-limit policy name: ${other.name}`);
      const sibling = redisRateLimiter({ ...options, policy: other });
      // The connection is the parent's: closed with it, not with the sibling.
      return { ...sibling, close: async () => undefined };
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** What openRateLimiter reads of the settings (libs/config's rateLimitEnv). */
export interface RateLimitSettings {
  /** Unset: counted in this process's memory. */
  REDIS_URL?: string | undefined;
  RATE_LIMIT_FREE_PER_MINUTE: number;
  RATE_LIMIT_PRO_PER_MINUTE: number;
  /** How long a request waits for Redis before it is counted in this process. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: number;
}

export interface RateLimitLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** How often a store outage is logged, with the count of requests it affected. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/** The process's rate limiter, from its settings: Redis when REDIS_URL names one, memory otherwise. */
export function openRateLimiter(settings: RateLimitSettings, logger: RateLimitLogger): RateLimiter {
  const limits: PlanRateLimits = {
    free: settings.RATE_LIMIT_FREE_PER_MINUTE,
    pro: settings.RATE_LIMIT_PRO_PER_MINUTE,
  };
  if (!settings.REDIS_URL) {
    logger.info({ limits }, 'rate limits counted in this process (no REDIS_URL)');
    return memoryRateLimiter(limits);
  }
  const redis = new Redis(settings.REDIS_URL, {
    // Commands fail while disconnected instead of waiting in a queue: the request is counted locally.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.RATE_LIMIT_REDIS_TIMEOUT_MS,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let failures = 0;
  let lastLogged = 0;
  const outage = (err: unknown, requestCounted: boolean) => {
    if (requestCounted) failures += 1;
    const t = Date.now();
    if (t - lastLogged < OUTAGE_LOG_INTERVAL_MS) return;
    lastLogged = t;
    logger.warn(
      { err, requestsCountedLocally: failures },
      'rate-limit store unreachable: counting in this process until it answers',
    );
    failures = 0;
  };
  // ioredis reports connection errors as events; unheard, an 'error' event would end the process.
  redis.on('error', (err: unknown) => outage(err, false));
  redis.on('ready', () => logger.info({ limits }, 'rate limits counted in Redis'));
  return redisRateLimiter({ redis, limits, onStoreError: (err) => outage(err, true) });
}

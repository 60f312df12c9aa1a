import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { headerLines, HttpError } from '@shortlink/http';
import { bearerToken, hashApiKey, looksLikeApiKey } from './api-key';
import { enforceRateLimit, type RateLimiter } from './rate-limit';
import type { Account, ActiveKey } from './store';

export interface AuthenticatorOptions {
  findKeyByHash: (hash: Buffer) => Promise<ActiveKey | null>;
  now: () => number;
  /** How long a key's answer is reused; a revocation takes effect within it. */
  cacheTtlMs: number;
  cacheSize: number;
}

export type Authenticate = (authorization: string | undefined) => Promise<ActiveKey | null>;

/**
 * Resolves a bearer key to its account, with a small cache so that an
 * integrator's steady stream of requests costs one database lookup per TTL.
 * Unknown keys are cached too, so a flood of bad keys cannot reach the database
 * faster than once per TTL per key.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticate {
  const cache = new Map<string, { key: ActiveKey | null; expiresAt: number }>();
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === null || !looksLikeApiKey(token)) return null;
    const hash = hashApiKey(token);
    const cacheKey = hash.toString('base64');
    const now = options.now();
    const hit = cache.get(cacheKey);
    if (hit && hit.expiresAt > now) return hit.key;
    const key = await options.findKeyByHash(hash);
    if (cache.size >= options.cacheSize) {
      // Oldest entry first: Map keeps insertion order.
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(cacheKey, { key, expiresAt: now + options.cacheTtlMs });
    return key;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

export const UNAUTHORIZED = new HttpError(
  401,
  'Unauthorized',
  'unauthorized',
  { detail: 'Send an API key as Authorization: Bearer <key>; npm run apikey -- create makes one.' },
  { 'WWW-Authenticate': 'Bearer' },
);

/**
 * An onRequest hook that sets `request.account` or answers 401 (a request
 * with two Authorization lines included), then counts
 * the request against the key's rate limit (429 past it). It runs before the
 * body is read, so neither an unauthenticated nor a refused request costs any
 * parsing. A 401 carries no rate-limit headers: there is no key to count for.
 */
export function requireApiKey(authenticate: Authenticate, rateLimiter: RateLimiter): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply) => {
    // Node keeps the first of two Authorization lines; two keys may be two accounts' keys.
    if (headerLines(request.raw.rawHeaders, 'authorization') > 1) {
      throw UNAUTHORIZED.withDetail('The request has more than one Authorization header: send one.');
    }
    const { authorization } = request.headers;
    const key = await authenticate(authorization);
    if (!key) throw UNAUTHORIZED.withDetail(unauthorizedDetail(authorization));
    request.account = key.account;
    await enforceRateLimit(rateLimiter, key.keyId, key.account.plan, reply);
  };
}

/**
 * Why a request is not authenticated, as far as its sender can act on it: no
 * header, a header that does not hold a key of this service's form, or a key
 * not known or revoked (one answer for both, so nothing tells which keys exist).
 */
function unauthorizedDetail(authorization: string | undefined): string {
  if (authorization === undefined) return 'No Authorization header: send Authorization: Bearer <API key>.';
  const token = bearerToken(authorization);
  if (token === null) return 'The Authorization header is not "Bearer <API key>".';
  if (!looksLikeApiKey(token)) return 'The Authorization header holds no API key of this service’s form.';
  return 'This API key is not known, or it has been revoked.';
}

/** The authenticated account of a request that passed `requireApiKey`. */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw UNAUTHORIZED;
  return request.account;
}

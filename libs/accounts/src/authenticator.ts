import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { HttpError } from '@shortlink/http';
import { bearerToken, hashApiKey, looksLikeApiKey } from './api-key';
import type { Account } from './store';

export interface AuthenticatorOptions {
  findAccountByKeyHash: (hash: Buffer) => Promise<Account | null>;
  now: () => number;
  /** How long a key's answer is reused; a revocation takes effect within it. */
  cacheTtlMs: number;
  cacheSize: number;
}

export type Authenticate = (authorization: string | undefined) => Promise<Account | null>;

/**
 * Resolves a bearer key to its account, with a small cache so that an
 * integrator's steady stream of requests costs one database lookup per TTL.
 * Unknown keys are cached too, so a flood of bad keys cannot reach the database
 * faster than once per TTL per key.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticate {
  const cache = new Map<string, { account: Account | null; expiresAt: number }>();
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === null || !looksLikeApiKey(token)) return null;
    const hash = hashApiKey(token);
    const cacheKey = hash.toString('base64');
    const now = options.now();
    const hit = cache.get(cacheKey);
    if (hit && hit.expiresAt > now) return hit.account;
    const account = await options.findAccountByKeyHash(hash);
    if (cache.size >= options.cacheSize) {
      // Oldest entry first: Map keeps insertion order.
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(cacheKey, { account, expiresAt: now + options.cacheTtlMs });
    return account;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

export const UNAUTHORIZED = new HttpError(401, 'Unauthorized', 'unauthorized', { 'WWW-Authenticate': 'Bearer' });

/**
 * An onRequest hook that sets `request.account` or answers 401. It runs before
 * the body is read, so an unauthenticated request costs no parsing.
 */
export function requireApiKey(authenticate: Authenticate): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const account = await authenticate(request.headers.authorization);
    if (!account) throw UNAUTHORIZED;
    request.account = account;
  };
}

/** The authenticated account of a request that passed `requireApiKey`. */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw UNAUTHORIZED;
  return request.account;
}

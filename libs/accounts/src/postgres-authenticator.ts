import type { Pool } from 'pg';
import { answerWithin } from '@shortlink/http';
import { createAuthenticator, type Authenticate } from './authenticator';
import { findActiveKeyByHash } from './store';

/** A key lookup takes a millisecond; one that has not come back after this will not come soon. */
const KEY_LOOKUP_MS = 3000;

/** How long an API process trusts a key it looked up: a revoked key works at most this much longer. */
export const KEY_CACHE_TTL_MS = 30_000;

/** The authenticator every API service uses: keys in Postgres, answers cached for KEY_CACHE_TTL_MS. */
export function postgresAuthenticator(pool: Pool): Authenticate {
  return createAuthenticator({
    // A Postgres that stalls answers nothing: a key not found within this is a 503, not a wait as long as the stall.
    findKeyByHash: (hash) => answerWithin(findActiveKeyByHash(pool, hash), KEY_LOOKUP_MS, 'Postgres'),
    now: Date.now,
    cacheTtlMs: KEY_CACHE_TTL_MS,
    cacheSize: 10_000,
  });
}

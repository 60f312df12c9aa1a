import type { Pool } from 'pg';
import { answerWithin } from '@shortlink/http';
import { createAuthenticator, type Authenticate } from './authenticator';
import { findActiveKeyByHash } from './store';

/** A key lookup takes a millisecond; one that has not come back after this will not come soon. */
const KEY_LOOKUP_MS = 3000;

/** The authenticator every API service uses: keys in Postgres, answers cached for 30 s. */
export function postgresAuthenticator(pool: Pool): Authenticate {
  return createAuthenticator({
    // A Postgres that stalls answers nothing: a key not found within this is a 503, not a wait as long as the stall.
    findKeyByHash: (hash) => answerWithin(findActiveKeyByHash(pool, hash), KEY_LOOKUP_MS, 'Postgres'),
    now: Date.now,
    cacheTtlMs: 30_000,
    cacheSize: 10_000,
  });
}

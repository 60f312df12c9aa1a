import type { Pool } from 'pg';
import { createAuthenticator, type Authenticate } from './authenticator';
import { findActiveKeyByHash } from './store';

/** The authenticator every API service uses: keys in Postgres, answers cached for 30 s. */
export function postgresAuthenticator(pool: Pool): Authenticate {
  return createAuthenticator({
    findKeyByHash: (hash) => findActiveKeyByHash(pool, hash),
    now: Date.now,
    cacheTtlMs: 30_000,
    cacheSize: 10_000,
  });
}

import { generateApiKey } from './api-key';
import { createAuthenticator, type Authenticate } from './authenticator';
import type { Plan } from './plans';
import type { ActiveKey } from './store';

export interface MemoryApiKeys {
  /** A new key of the account `account-<name>`, as the key table would hold it, and its Authorization header. */
  issue(name: string, plan: Plan): { authorization: string; active: ActiveKey };
  /** The authenticator over the keys issued so far, nothing cached. */
  authenticate: Authenticate;
}

/** The key table in memory, as `memoryRateLimiter` is a rate limiter: for routes served without Postgres (tests). */
export function memoryApiKeys(): MemoryApiKeys {
  const keys = new Map<string, ActiveKey>();
  return {
    issue(name, plan) {
      const { key, hash } = generateApiKey();
      const active: ActiveKey = { keyId: `key-${name}`, account: { id: `account-${name}`, name, plan } };
      keys.set(hash.toString('hex'), active);
      return { authorization: `Bearer ${key}`, active };
    },
    authenticate: createAuthenticator({
      findKeyByHash: async (hash) => keys.get(hash.toString('hex')) ?? null,
      now: Date.now,
      cacheTtlMs: 0,
      cacheSize: 10,
    }),
  };
}

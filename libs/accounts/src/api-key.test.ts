import { bearerToken, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key';
import { createAuthenticator } from './authenticator';
import type { Account } from './store';

describe('api keys', () => {
  it('carry a prefix and 192 random bits, and are stored only as a hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^slk_[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(a.key.slice(4), 'base64url')).toHaveLength(24);
    expect(a.key).not.toBe(b.key);
    expect(a.hash.equals(hashApiKey(a.key))).toBe(true);
    expect(a.hash.toString('hex')).not.toContain(a.key);
    expect(a.key.startsWith(a.displayPrefix)).toBe(true);
    expect(looksLikeApiKey(a.key)).toBe(true);
    expect(looksLikeApiKey('slk_short')).toBe(false);
  });

  it('reads the bearer token of an Authorization header', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe('authenticator', () => {
  const account: Account = { id: 'acc', name: 'Acme', plan: 'pro' };
  const { key, hash } = generateApiKey();

  function setup() {
    let now = 0;
    const lookups: string[] = [];
    const authenticate = createAuthenticator({
      findKeyByHash: async (h) => {
        lookups.push(h.toString('hex'));
        return h.equals(hash) ? { keyId: 'key-1', account } : null;
      },
      now: () => now,
      cacheTtlMs: 1000,
      cacheSize: 2,
    });
    return { authenticate, lookups, advance: (ms: number) => (now += ms) };
  }

  it('resolves a valid key and caches the answer for the TTL', async () => {
    const { authenticate, lookups, advance } = setup();
    expect(await authenticate(`Bearer ${key}`)).toEqual({ keyId: 'key-1', account });
    expect(await authenticate(`Bearer ${key}`)).toEqual({ keyId: 'key-1', account });
    expect(lookups).toHaveLength(1);
    advance(1001);
    await authenticate(`Bearer ${key}`);
    expect(lookups).toHaveLength(2);
  });

  it('refuses malformed and unknown keys, looking up only well-formed ones', async () => {
    const { authenticate, lookups } = setup();
    expect(await authenticate(undefined)).toBeNull();
    expect(await authenticate('Bearer not-a-key')).toBeNull();
    expect(lookups).toHaveLength(0);
    expect(await authenticate(`Bearer ${generateApiKey().key}`)).toBeNull();
    expect(lookups).toHaveLength(1);
  });
});

import { createHash, randomBytes } from 'node:crypto';

/** Recognisable in logs, config files and secret scanners. */
export const API_KEY_PREFIX = 'slk_';
const RANDOM_BYTES = 24; // 192 bits
const KEY_SHAPE = /^slk_[A-Za-z0-9_-]{32}$/;

export interface NewApiKey {
  /** The key itself: shown once, never stored. */
  key: string;
  hash: Buffer;
  /** Enough of the key to tell keys apart in a listing, not enough to use it. */
  displayPrefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, API_KEY_PREFIX.length + 6) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

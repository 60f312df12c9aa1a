import { seededRandom } from './seeded-random';
import { zipfSampler } from './zipf';

/**
 * Where the bench's clicks come from, sent as `X-Forwarded-For` to a redirector that trusts its proxy: `zipf`,
 * 1,000,000 visitors, the k-th busiest clicking in proportion to 1/k (a few NATs and heavy users click often, most once
 * or twice, as on a real link shortener); `distinct`, a new address every click, the worst case for anything that
 * remembers addresses; `loopback`, no header, every click from 127.0.0.1, to compare with results made that way.
 */
export type ClientAddresses = 'zipf' | 'distinct' | 'loopback';
export const CLIENT_ADDRESSES: readonly ClientAddresses[] = ['zipf', 'distinct', 'loopback'];

const VISITORS = 1_000_000;

/** The address of visitor `n`: spread over the whole space (a multiplicative hash), one in four IPv6. */
export function visitorAddress(n: number): string {
  const h = Math.imul(n, 0x9e3779b1) >>> 0;
  if (n % 4 === 0) {
    return `2a0${h & 7}:${((h >>> 3) & 0xffff).toString(16)}:${(n >>> 16).toString(16)}::${(n & 0xffff).toString(16)}`;
  }
  return `${h >>> 24 || 1}.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${h & 255}`;
}

/** Draws the next click's address, or undefined for `loopback`. */
export function clientAddressSampler(kind: ClientAddresses, seed: number): () => string | undefined {
  if (kind === 'loopback') return () => undefined;
  if (kind === 'distinct') {
    let next = seed * VISITORS;
    return () => visitorAddress(next++);
  }
  const rank = zipfSampler(VISITORS, 1, seededRandom(seed));
  return () => visitorAddress(rank());
}

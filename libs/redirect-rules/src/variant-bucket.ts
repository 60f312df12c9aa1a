import { createHmac } from 'node:crypto';

/**
 * Sticky variants. The visitor hash of the clicks (HMAC-SHA256 of the address, visitor-hash.ts) is made on the click
 * worker, off the redirect path, and costs a microsecond or two; a variant is chosen on the redirect thread. So each
 * link gets a seed once, when it is compiled: an HMAC of its id under the installation's visitor secret. A visit's
 * bucket (0-99) is a 32-bit mix of that seed and the client address, worked out while the request is answered; the
 * address is not kept, and the bucket, one of a hundred, identifies no one. The same address gets the same variant of
 * a link for as long as the secret and the link's variants stay; two links split their visitors independently.
 */
export function variantSeed(secret: string, linkId: string): number {
  return createHmac('sha256', secret).update(`variants:${linkId}`).digest().readUInt32LE(0);
}

/** The address's bucket, 0-99, under a link's seed: MurmurHash3's 32-bit body and finaliser over its characters. */
export function variantBucket(seed: number, address: string): number {
  let h = seed | 0;
  const length = address.length;
  for (let i = 0; i < length; i++) {
    let k = Math.imul(address.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % 100;
}

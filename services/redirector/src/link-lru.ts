import { randomInt } from 'node:crypto';
import { isLinkOf, packLink, slugOfPacked, unpackLink, type PackedLink } from './compact-link';
import type { ResolvedLink } from './resolved-link';

const NONE = 0xffffffff;

/**
 * The links a redirector holds, least recently used evicted first, in about 28 bytes of bookkeeping a link (a Map would
 * take a key string and about 58 bytes more). Each packed link holds its slug (compact-link.ts) and is found through an
 * open-addressed table at most half full (linear probing, backward-shift deletion), hashes and recency in typed arrays;
 * a lookup allocates only the link a hit returns. The hash is seeded per process, so slugs chosen to collide in one do
 * not collide in another (docs/decisions/0008-redirect-cache-packed-lru.md).
 */
export class LinkLru {
  readonly #capacity: number;
  /** Slot → the packed link, or undefined when free. */
  readonly #links: (PackedLink | undefined)[];
  readonly #hashes: Uint32Array;
  /** Recency: towards the most recent (#newer) and the least (#older); free slots are chained on #older. */
  readonly #newer: Uint32Array;
  readonly #older: Uint32Array;
  /** Open-addressed table: slot + 1, or 0 for an empty position. */
  readonly #table: Uint32Array;
  readonly #mask: number;
  readonly #seed = randomInt(2 ** 31);
  #newest = NONE;
  #oldest = NONE;
  #free = NONE;
  /** Slots never used yet start here. */
  #unused = 0;
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity >= 2 ** 30) {
      throw new RangeError(`a link LRU holds 1 to 2^30 - 1 links, not ${capacity}`);
    }
    this.#capacity = capacity;
    this.#links = new Array<PackedLink | undefined>(capacity);
    this.#hashes = new Uint32Array(capacity);
    this.#newer = new Uint32Array(capacity);
    this.#older = new Uint32Array(capacity);
    let positions = 2;
    while (positions < 2 * capacity) positions *= 2;
    this.#table = new Uint32Array(positions);
    this.#mask = positions - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** The link of this slug, made the most recently used; undefined when not held. */
  get(slug: string): ResolvedLink | undefined {
    const at = this.#find(slug, this.#hash(slug));
    if (at === NONE) return undefined;
    const slot = (this.#table[at] as number) - 1;
    this.#touch(slot);
    return unpackLink(slug, this.#links[slot] as PackedLink);
  }

  /** Holds the link (replacing one of its slug), evicting the least recently used when full. */
  set(link: ResolvedLink): void {
    const hash = this.#hash(link.slug);
    const at = this.#find(link.slug, hash);
    if (at !== NONE) {
      const slot = (this.#table[at] as number) - 1;
      this.#links[slot] = packLink(link);
      this.#touch(slot);
      return;
    }
    if (this.#size === this.#capacity) this.#delete(this.#oldest);
    const slot = this.#takeSlot();
    this.#links[slot] = packLink(link);
    this.#hashes[slot] = hash;
    this.#pushNewest(slot);
    let position = hash & this.#mask;
    while (this.#table[position] !== 0) position = (position + 1) & this.#mask;
    this.#table[position] = slot + 1;
    this.#size++;
  }

  delete(slug: string): boolean {
    const at = this.#find(slug, this.#hash(slug));
    if (at === NONE) return false;
    this.#delete((this.#table[at] as number) - 1);
    return true;
  }

  clear(): void {
    this.#links.fill(undefined);
    this.#table.fill(0);
    this.#newest = this.#oldest = this.#free = NONE;
    this.#unused = 0;
    this.#size = 0;
  }

  /** The slugs held, most recently used first (for tests and inspection; allocates). */
  *slugs(): IterableIterator<string> {
    for (let slot = this.#newest; slot !== NONE; slot = this.#older[slot] as number) {
      yield slugOfPacked(this.#links[slot] as PackedLink);
    }
  }

  /** Seeded FNV-1a, then murmur3's finaliser so that the low bits (the table's) depend on every character. */
  #hash(slug: string): number {
    let h = 0x811c9dc5 ^ this.#seed;
    for (let i = 0; i < slug.length; i++) h = Math.imul(h ^ slug.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  /** The table position holding the slug's slot, or NONE. */
  #find(slug: string, hash: number): number {
    for (let position = hash & this.#mask; ; position = (position + 1) & this.#mask) {
      const entry = this.#table[position] as number;
      if (entry === 0) return NONE;
      const slot = entry - 1;
      if (this.#hashes[slot] === hash && isLinkOf(this.#links[slot] as PackedLink, slug)) return position;
    }
  }

  #delete(slot: number): void {
    let hole = this.#positionOf(slot);
    // Backward shift: every entry after the hole, up to the next empty position, that may sit in it moves there.
    for (let position = (hole + 1) & this.#mask; ; position = (position + 1) & this.#mask) {
      const entry = this.#table[position] as number;
      if (entry === 0) break;
      const home = (this.#hashes[entry - 1] as number) & this.#mask;
      // The entry may move back to the hole unless its home lies cyclically after the hole, up to its position.
      const homeAfterHole = hole <= position ? hole < home && home <= position : hole < home || home <= position;
      if (!homeAfterHole) {
        this.#table[hole] = entry;
        hole = position;
      }
    }
    this.#table[hole] = 0;
    this.#unlink(slot);
    this.#links[slot] = undefined;
    this.#older[slot] = this.#free;
    this.#free = slot;
    this.#size--;
  }

  #positionOf(slot: number): number {
    for (let position = (this.#hashes[slot] as number) & this.#mask; ; position = (position + 1) & this.#mask) {
      if (this.#table[position] === slot + 1) return position;
    }
  }

  #takeSlot(): number {
    if (this.#free !== NONE) {
      const slot = this.#free;
      this.#free = this.#older[slot] as number;
      return slot;
    }
    return this.#unused++;
  }

  #touch(slot: number): void {
    if (slot === this.#newest) return;
    this.#unlink(slot);
    this.#pushNewest(slot);
  }

  #pushNewest(slot: number): void {
    this.#newer[slot] = NONE;
    this.#older[slot] = this.#newest;
    if (this.#newest !== NONE) this.#newer[this.#newest] = slot;
    this.#newest = slot;
    if (this.#oldest === NONE) this.#oldest = slot;
  }

  #unlink(slot: number): void {
    const newer = this.#newer[slot] as number;
    const older = this.#older[slot] as number;
    if (newer === NONE) this.#newest = older;
    else this.#older[newer] = older;
    if (older === NONE) this.#oldest = newer;
    else this.#newer[older] = newer;
  }
}

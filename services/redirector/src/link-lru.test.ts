import fc from 'fast-check';
import { LinkLru } from './link-lru';
import type { ResolvedLink } from './resolved-link';

const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const linkOf = (slug: string, version: number, packable: boolean): ResolvedLink => ({
  slug,
  // A non-UUID id keeps the link an object (compact-link.ts): both forms live in one table.
  linkId: packable ? uuid(version) : `id-${version}`,
  // Each link an account of its own: a slot reused after an eviction never answers with another's account.
  accountId: uuid(100_000 + version),
  location: version % 2 === 0 ? `https://example.com/${slug}/${version}` : `http://example.org/${version}?q=${slug}`,
});

/** What an LRU must do, in the plainest code: a Map in recency order. */
class ModelLru {
  readonly entries = new Map<string, ResolvedLink>();
  constructor(readonly capacity: number) {}
  get(slug: string) {
    const link = this.entries.get(slug);
    if (link === undefined) return undefined;
    this.entries.delete(slug);
    this.entries.set(slug, link);
    return link;
  }
  set(link: ResolvedLink) {
    this.entries.delete(link.slug);
    if (this.entries.size === this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(link.slug, link);
  }
  delete(slug: string) {
    return this.entries.delete(slug);
  }
}

type Step =
  | { op: 'get'; slug: string }
  | { op: 'delete'; slug: string }
  | { op: 'set'; slug: string; version: number; packable: boolean }
  | { op: 'clear' };

// Few slugs for a small table: every step hits, misses, collides, evicts or wraps around the table's end.
const slug = fc.constantFrom('a', 'b', 'c', 'abc', 'abd', 'z-1', 'z-10', 'z-100', 'x'.repeat(30), 'q-r-s');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('get' as const), slug }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      slug,
      version: fc.nat(1000),
      packable: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), slug }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

describe('LinkLru', () => {
  it('answers, evicts and forgets exactly as a least-recently-used map would', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 300 }), (capacity, steps) => {
        const lru = new LinkLru(capacity);
        const model = new ModelLru(capacity);
        for (const s of steps) {
          if (s.op === 'get') expect(lru.get(s.slug)).toEqual(model.get(s.slug));
          else if (s.op === 'delete') expect(lru.delete(s.slug)).toBe(model.delete(s.slug));
          else if (s.op === 'clear') {
            lru.clear();
            model.entries.clear();
          } else {
            const link = linkOf(s.slug, s.version, s.packable);
            lru.set(link);
            model.set(link);
          }
          expect(lru.size).toBe(model.entries.size);
          expect([...lru.slugs()]).toEqual([...model.entries.keys()].reverse());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('finds every link among many, after most of them were evicted or deleted', () => {
    const lru = new LinkLru(1000);
    for (let i = 0; i < 5000; i++) lru.set(linkOf(`z-${i}`, i, true));
    for (let i = 4000; i < 5000; i += 2) expect(lru.delete(`z-${i}`)).toBe(true);
    for (let i = 0; i < 5000; i++) {
      const held = i >= 4000 && i % 2 === 1;
      expect(lru.get(`z-${i}`)).toEqual(held ? linkOf(`z-${i}`, i, true) : undefined);
    }
    expect(lru.size).toBe(500);
  });

  it('tells slugs apart that one is the start of the other', () => {
    const lru = new LinkLru(4);
    lru.set(linkOf('abc', 1, true));
    expect(lru.get('ab')).toBeUndefined();
    expect(lru.get('abcd')).toBeUndefined();
    expect(lru.get('abc')?.linkId).toBe(uuid(1));
  });

  it('refuses a capacity it cannot hold', () => {
    expect(() => new LinkLru(0)).toThrow(RangeError);
    expect(() => new LinkLru(1.5)).toThrow(RangeError);
  });
});

import { LinkCache, type ResolvedLink } from './link-cache';

const link: ResolvedLink = { slug: 'abc12', linkId: 'l1', accountId: 'a1', location: 'https://example.com/' };

function setup(known: Record<string, ResolvedLink> = { abc12: link }) {
  const lookups: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const cache = new LinkCache({
    maxEntries: 3,
    negativeTtlMs: 60_000,
    lookup: async (slug) => {
      lookups.push(slug);
      if (hold) await new Promise<void>((r) => (release = r));
      return known[slug] ?? null;
    },
  });
  return {
    cache,
    lookups,
    known,
    holdLookups: () => (hold = true),
    releaseLookup: () => release?.(),
  };
}

describe('LinkCache', () => {
  it('looks a link up once, then answers from memory synchronously', async () => {
    const { cache, lookups } = setup();
    expect(cache.peek('abc12')).toBeUndefined();
    expect(await cache.resolve('abc12')).toEqual(link);
    expect(cache.peek('abc12')).toEqual(link);
    expect(await cache.resolve('abc12')).toEqual(link);
    expect(lookups).toEqual(['abc12']);
  });

  it('remembers unknown slugs, and forgets one when it is created', async () => {
    const { cache, lookups, known } = setup();
    expect(await cache.resolve('nope1')).toBeNull();
    expect(cache.peek('nope1')).toBeNull();
    expect(await cache.resolve('nope1')).toBeNull();
    expect(lookups).toEqual(['nope1']);
    known['nope1'] = link;
    cache.forget('nope1');
    expect(await cache.resolve('nope1')).toEqual(link);
  });

  it('shares one lookup between concurrent misses', async () => {
    const { cache, lookups } = setup();
    const results = await Promise.all([cache.resolve('abc12'), cache.resolve('abc12'), cache.resolve('abc12')]);
    expect(results).toEqual([link, link, link]);
    expect(lookups).toEqual(['abc12']);
  });

  it('does not remember a miss that raced with the slug being created', async () => {
    const { cache, holdLookups, releaseLookup } = setup();
    holdLookups();
    const pending = cache.resolve('new01');
    cache.forget('new01'); // the notification arrives while the lookup is in flight
    releaseLookup();
    expect(await pending).toBeNull();
    expect(cache.peek('new01')).toBeUndefined();
  });

  it('drops every remembered miss when notifications may have been lost', async () => {
    const { cache } = setup();
    await cache.resolve('nope1');
    await cache.resolve('abc12');
    cache.forgetAllMisses();
    expect(cache.peek('nope1')).toBeUndefined();
    expect(cache.peek('abc12')).toEqual(link);
  });

  it('is bounded', async () => {
    const known = Object.fromEntries(['s0001', 's0002', 's0003', 's0004'].map((s) => [s, link]));
    const { cache } = setup(known);
    for (const slug of Object.keys(known)) await cache.resolve(slug);
    expect(cache.size).toBe(3);
    expect(cache.peek('s0001')).toBeUndefined();
  });

  it('does not cache a failed lookup', async () => {
    let fail = true;
    const cache = new LinkCache({
      maxEntries: 10,
      negativeTtlMs: 1000,
      lookup: async () => {
        if (fail) throw new Error('database down');
        return link;
      },
    });
    await expect(cache.resolve('abc12')).rejects.toThrow('database down');
    fail = false;
    expect(await cache.resolve('abc12')).toEqual(link);
  });
});

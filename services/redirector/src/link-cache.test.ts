import { LinkCache } from './link-cache';
import type { ResolvedLink } from './resolved-link';

// Ids as Postgres prints them, so the cache keeps its links packed (compact-link.ts).
const link: ResolvedLink = {
  slug: 'abc12',
  linkId: '2f6c1f4e-8d3b-4a7e-9c21-5b0d7e3a9f10',
  accountId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  location: 'https://example.com/',
};

function setup(
  known: Record<string, ResolvedLink> = { abc12: link },
  catchUp?: () => Promise<boolean>,
  trusted?: () => boolean,
  storeAway?: () => boolean,
) {
  const lookups: string[] = [];
  const releases: (() => void)[] = [];
  let hold = false;
  let down = false;
  const cache = new LinkCache({
    maxEntries: 3,
    negativeTtlMs: 60_000,
    catchUp,
    trusted,
    storeAway,
    lookup: async (slug) => {
      lookups.push(slug);
      // Read when the query runs, answered later: a held lookup answers what was stored when it began.
      const answer = known[slug] ?? null;
      if (hold) await new Promise<void>((r) => releases.push(r));
      if (down) throw new Error('database down');
      return answer;
    },
  });
  return {
    cache,
    lookups,
    known,
    holdLookups: () => (hold = true),
    databaseDown: (value: boolean) => (down = value),
    /** Lets the held lookups finish; later ones run freely. */
    releaseLookups: () => {
      hold = false;
      for (const r of releases.splice(0)) r();
    },
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
    const { cache, holdLookups, releaseLookups } = setup();
    holdLookups();
    const pending = cache.resolve('new01');
    cache.forget('new01'); // the notification arrives while the lookup is in flight
    releaseLookups();
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

  it('remembers unknown slugs apart: a scan of them never evicts a link', async () => {
    const { cache, lookups } = setup();
    await cache.resolve('abc12');
    for (let i = 0; i < 20; i++) expect(await cache.resolve(`scan${i}`)).toBeNull();
    expect(cache.peek('abc12')).toEqual(link);
    // A tenth of the 3 links' room: the latest unknown slug only.
    expect(cache.peek('scan19')).toBeNull();
    expect(cache.peek('scan18')).toBeUndefined();
    expect(lookups).toHaveLength(21);
  });

  it('answers each slug its own link, ids and all', async () => {
    const other: ResolvedLink = {
      slug: 'other',
      linkId: '0b5e3c2a-1d4f-4e6a-9b8c-7d6e5f4a3b2c',
      accountId: '3c2b1a09-f8e7-4d6c-b5a4-938271605f4e',
      location: 'http://other.example/path?q=1',
    };
    const { cache } = setup({ abc12: link, other });
    await cache.resolve('abc12');
    await cache.resolve('other');
    expect(cache.peek('abc12')).toEqual(link);
    expect(cache.peek('other')).toEqual(other);
    expect(await cache.resolve('other')).toEqual(other);
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

  describe('when links are created in other processes', () => {
    it('answers a miss that holds after catching up without another lookup', async () => {
      const catchUps: number[] = [];
      const { cache, lookups } = setup({}, async () => {
        catchUps.push(1);
        return true;
      });
      expect(await cache.resolve('nope1')).toBeNull();
      expect(await cache.resolve('nope1')).toBeNull();
      expect(lookups).toEqual(['nope1']);
      expect(catchUps).toHaveLength(2);
    });

    it('looks a remembered miss up again when its creation arrives during the catch-up', async () => {
      const known: Record<string, ResolvedLink> = {};
      let deliver = false;
      const env = setup(known, async () => {
        if (deliver) {
          known['new01'] = { ...link, slug: 'new01' };
          env.cache.forget('new01');
        }
        return true;
      });
      expect(await env.cache.resolve('new01')).toBeNull();
      expect(env.cache.peek('new01')).toBeNull();
      deliver = true; // created in another process; its 201 left before this request
      expect(await env.cache.resolve('new01')).toEqual({ ...link, slug: 'new01' });
      expect(env.lookups).toEqual(['new01', 'new01']);
    });

    it('does not trust a remembered miss when it cannot catch up', async () => {
      const { cache, lookups } = setup({}, async () => false);
      expect(await cache.resolve('nope1')).toBeNull();
      expect(await cache.resolve('nope1')).toBeNull();
      // The first request's lookup, then one per answer to confirm it.
      expect(lookups).toEqual(['nope1', 'nope1', 'nope1']);
    });

    it('does not answer from a shared lookup that began before the slug was created', async () => {
      const known: Record<string, ResolvedLink> = {};
      const env = setup(known, async () => true);
      env.holdLookups();
      const early = env.cache.resolve('new01'); // its lookup sees no slug yet
      const late = env.cache.resolve('new01'); // joins that lookup
      known['new01'] = { ...link, slug: 'new01' };
      env.cache.forget('new01'); // created, and the notification arrives meanwhile
      env.releaseLookups();
      expect(await late).toEqual({ ...link, slug: 'new01' });
      expect(await early).toEqual({ ...link, slug: 'new01' });
    });
  });

  describe('when links change in other processes', () => {
    const moved: ResolvedLink = { ...link, location: 'https://example.com/moved' };

    it('drops a cached link when it changes, and looks it up afresh', async () => {
      const { cache, known, lookups } = setup();
      expect(await cache.resolve('abc12')).toEqual(link);
      known['abc12'] = moved;
      cache.invalidate('abc12');
      expect(cache.peek('abc12')).toBeUndefined();
      expect(await cache.resolve('abc12')).toEqual(moved);
      expect(lookups).toEqual(['abc12', 'abc12']);
    });

    it('drops a deleted link, then remembers it as unknown', async () => {
      const { cache, known } = setup();
      await cache.resolve('abc12');
      delete known['abc12'];
      cache.invalidate('abc12');
      expect(await cache.resolve('abc12')).toBeNull();
      expect(cache.peek('abc12')).toBeNull();
    });

    it('never answers a later request from a lookup that began before the change', async () => {
      const env = setup();
      env.holdLookups();
      const early = env.cache.resolve('abc12'); // its lookup reads the old destination
      env.known['abc12'] = moved;
      env.cache.invalidate('abc12'); // the change commits; its notification arrives
      const late = env.cache.resolve('abc12'); // a request after the 200: must not join the early lookup
      env.releaseLookups();
      expect(await early).toEqual(link); // it began before the change: either answer is right
      expect(await late).toEqual(moved);
      expect(env.cache.peek('abc12')).not.toEqual(link); // and the old answer was not cached
    });

    it('answers nothing from memory while not trusted: every request looks the slug up', async () => {
      let trusted = true;
      const { cache, known, lookups } = setup(undefined, undefined, () => trusted);
      await cache.resolve('abc12');
      trusted = false; // the listener lost its lease: changes may be missed
      expect(cache.peek('abc12')).toBeUndefined();
      known['abc12'] = moved; // changed meanwhile, no notification
      expect(await cache.resolve('abc12')).toEqual(moved);
      expect(await cache.resolve('abc12')).toEqual(moved);
      expect(lookups).toEqual(['abc12', 'abc12', 'abc12']);
    });

    it('while not trusted, shares only lookups that start after the request', async () => {
      const env = setup(undefined, undefined, () => false);
      env.holdLookups();
      const early = env.cache.resolve('abc12');
      env.known['abc12'] = moved;
      const late1 = env.cache.resolve('abc12');
      const late2 = env.cache.resolve('abc12');
      env.releaseLookups();
      await early;
      env.releaseLookups();
      expect(await late1).toEqual(moved);
      expect(await late2).toEqual(moved);
      expect(env.lookups).toEqual(['abc12', 'abc12']);
    });

    it('while not trusted and Postgres is unreachable, a cached link still redirects; an unknown one fails', async () => {
      let trusted = true;
      const env = setup(undefined, undefined, () => trusted);
      await env.cache.resolve('abc12');
      trusted = false;
      env.databaseDown(true);
      expect(await env.cache.resolve('abc12')).toEqual(link);
      await expect(env.cache.resolve('other')).rejects.toThrow('database down');
    });

    it('while not trusted and the store held for away, a cached link waits for no lookup of its slug already under way', async () => {
      let trusted = true;
      let away = false;
      const env = setup(
        undefined,
        undefined,
        () => trusted,
        () => away,
      );
      await env.cache.resolve('abc12');
      trusted = false;
      away = true;
      env.holdLookups();
      env.databaseDown(true);
      const early = env.cache.resolve('abc12');
      const late = env.cache.resolve('abc12');
      // Each its own lookup, both under way at once (the gate makes them one attempt at the store)
      expect(env.lookups).toEqual(['abc12', 'abc12', 'abc12']);
      env.releaseLookups();
      expect(await early).toEqual(link);
      expect(await late).toEqual(link);
      // An unknown slug is shared as before: no cached link to serve, nothing to gain
      env.holdLookups();
      const unknown = [env.cache.resolve('other'), env.cache.resolve('other')];
      expect(env.lookups.filter((s) => s === 'other')).toEqual(['other']);
      env.releaseLookups();
      for (const p of unknown) await expect(p).rejects.toThrow('database down');
    });

    it('drops everything when told changes may have been missed, in-flight answers included', async () => {
      const env = setup();
      await env.cache.resolve('abc12');
      env.holdLookups();
      const inFlight = env.cache.resolve('nope1');
      env.cache.forgetAll();
      env.releaseLookups();
      await inFlight;
      expect(env.cache.peek('abc12')).toBeUndefined();
      expect(env.cache.peek('nope1')).toBeUndefined();
    });
  });
});

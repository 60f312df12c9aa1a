import type { ResolvedLink } from './resolved-link';
import { gateLookupsThroughOutages } from './outage-gate';

const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const link = (slug: string): ResolvedLink => ({ slug, linkId: 'l', accountId: 'a', location: 'https://example.com/' });

/** A store that is up or away, and a probe whose round trips are answered by hand. */
function given(state: { up: boolean }) {
  const lookups: string[] = [];
  const back: number[] = [];
  const probes: { up: boolean; answer: () => void }[] = [];
  const gate = gateLookupsThroughOutages(
    async (slug) => {
      lookups.push(slug);
      if (!state.up) throw outage;
      if (slug === 'broken') throw new Error('function find_link_by_slug does not exist');
      return link(slug);
    },
    {
      // Like a connection attempt: what it meets is the store's state when it is sent.
      probe: () =>
        new Promise<void>((resolve, reject) => {
          const up = state.up;
          probes.push({ up, answer: () => (up ? resolve() : reject(outage)) });
        }),
      isOutage: (e) => e === outage,
      onStoreBack: () => back.push(lookups.length),
    },
  );
  const answerProbe = async () => {
    probes.shift()!.answer();
    await new Promise((r) => setImmediate(r));
  };
  return { gate, lookups, probes, answerProbe, back };
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ error: e }),
  );

describe('gateLookupsThroughOutages', () => {
  it('lets lookups through while the store answers, without probing', async () => {
    const { gate, lookups, probes } = given({ up: true });
    await expect(gate.lookup('abc12')).resolves.toEqual(link('abc12'));
    await expect(gate.lookup('abc13')).resolves.toEqual(link('abc13'));
    expect(lookups).toEqual(['abc12', 'abc13']);
    expect(probes).toHaveLength(0);
    expect(gate.storeAway()).toBe(false);
  });

  it('once a lookup meets an outage, a burst of lookups shares two probes, and their failure fails them all', async () => {
    const state = { up: false };
    const { gate, lookups, probes, answerProbe } = given(state);
    await expect(gate.lookup('first')).rejects.toBe(outage);
    expect(gate.storeAway()).toBe(true);

    const waiting = Array.from({ length: 200 }, (_, i) => settle(gate.lookup(`s${i}`)));
    await new Promise((r) => setImmediate(r));
    // The first sends a probe; the 199 that came while it was under way share the next.
    expect(probes).toHaveLength(1);
    await answerProbe();
    expect(probes).toHaveLength(1);
    await answerProbe();
    const results = await Promise.all(waiting);
    expect(results.every((r) => 'error' in r && r.error === outage)).toBe(true);
    // None of the 200 opened a connection of its own.
    expect(lookups).toEqual(['first']);
    expect(probes).toHaveLength(0);
  });

  it('never answers a lookup with a probe sent before it arrived', async () => {
    const state = { up: false };
    const { gate, lookups, probes, answerProbe } = given(state);
    await expect(gate.lookup('first')).rejects.toBe(outage);
    const early = settle(gate.lookup('early'));
    await new Promise((r) => setImmediate(r));
    expect(probes).toHaveLength(1);

    // The store comes back while that probe (sent when it was away) is under way.
    state.up = true;
    const late = gate.lookup('late');
    await answerProbe();
    expect(await early).toEqual({ error: outage });
    // The late lookup waits for a probe of its own, sent after it came, which finds the store back.
    expect(probes).toHaveLength(1);
    await answerProbe();
    await expect(late).resolves.toEqual(link('late'));
    expect(lookups).toEqual(['first', 'late']);
    expect(gate.storeAway()).toBe(false);
  });

  it('opens once a probe answers (saying so once, before the lookups): each lookup then runs its own query', async () => {
    const state = { up: false };
    const { gate, lookups, answerProbe, back } = given(state);
    await expect(gate.lookup('first')).rejects.toBe(outage);
    state.up = true;
    const both = Promise.all([gate.lookup('abc12'), gate.lookup('abc13')]);
    await new Promise((r) => setImmediate(r));
    await answerProbe();
    await answerProbe();
    await expect(both).resolves.toEqual([link('abc12'), link('abc13')]);
    await expect(gate.lookup('abc14')).resolves.toEqual(link('abc14'));
    expect(lookups).toEqual(['first', 'abc12', 'abc13', 'abc14']);
    // The listener is told when the first probe finds the store back, before any lookup of the waiting ones.
    expect(back).toEqual([1]);
  });

  it('stays open when a query fails for a reason of its own', async () => {
    const { gate, probes } = given({ up: true });
    await expect(gate.lookup('broken')).rejects.toThrow('does not exist');
    expect(gate.storeAway()).toBe(false);
    await expect(gate.lookup('abc12')).resolves.toEqual(link('abc12'));
    expect(probes).toHaveLength(0);
  });
});

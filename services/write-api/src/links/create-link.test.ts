import type { Account } from '@shortlink/accounts';
import type { LinkCreated } from '@shortlink/events';
import { HttpError } from '@shortlink/http';
import type { Claim, ClaimStore } from './stores/claims';
import { createLink, createLinks, type CreateLinkDeps } from './create-link';

const account: Account = { id: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c', name: 'Acme', plan: 'pro' };

/** The claim table's rule, in memory: one claim per slug. */
function memoryClaims() {
  const claims = new Map<string, Claim & { state: 'pending' | 'committed' }>();
  /** The size of each claim statement. */
  const statements: number[] = [];
  const store: ClaimStore = {
    async claim(c) {
      if (claims.has(c.slug)) return false;
      claims.set(c.slug, { ...c, state: 'pending' });
      return true;
    },
    async commit(slug, linkId) {
      const c = claims.get(slug);
      if (c && c.linkId === linkId) c.state = 'committed';
    },
    claimAll(cs) {
      statements.push(cs.length);
      return cs.map((c) => store.claim(c));
    },
    commitAll: (refs) => refs.map((r) => store.commit(r.slug, r.linkId)),
    async findOwn(linkIds) {
      return [...claims.values()]
        .filter((c) => linkIds.includes(c.linkId))
        .map(({ slug, linkId, state, createdAt }) => ({ slug, linkId, state, createdAt }));
    },
  };
  return { store, claims, statements };
}

function deps(overrides: Partial<CreateLinkDeps> = {}) {
  const { store, claims, statements } = memoryClaims();
  const appended: LinkCreated[] = [];
  /** The size of each produce request. */
  const requests: number[] = [];
  const committed: string[] = [];
  let ids = 0;
  const d: CreateLinkDeps = {
    claims: store,
    appendLinkCreated: (events) => {
      requests.push(events.length);
      appended.push(...events);
      return events.map(async () => undefined);
    },
    now: () => new Date('2026-11-22T10:00:00.123Z'),
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    newSlug: () => 'abc12',
    publicBaseUrl: 'https://sho.rt',
    onLinkCommitted: (slug) => committed.push(slug),
    onClaimError: () => undefined,
    ...overrides,
  };
  return { d, claims, appended, committed, statements, requests };
}

describe('createLink', () => {
  it('claims, appends one LinkCreated, commits, and returns the Link', async () => {
    const { d, claims, appended, committed } = deps();
    const link = await createLink(d, account, { destinationUrl: 'https://example.com', customSlug: 'go', tag: 'x' });
    expect(link).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      slug: 'go',
      shortUrl: 'https://sho.rt/go',
      destinationUrl: 'https://example.com',
      tag: 'x',
      createdAt: '2026-11-22T10:00:00.123Z',
      updatedAt: '2026-11-22T10:00:00.123Z',
      rules: [],
      variants: null,
      domain: null,
    });
    expect(appended).toHaveLength(1);
    expect(appended[0]).toEqual({
      eventId: expect.any(String),
      type: 'LinkCreated',
      schemaVersion: 2,
      occurredAt: '2026-11-22T10:00:00.123Z',
      data: {
        linkId: link.id,
        accountId: account.id,
        slug: 'go',
        destinationUrl: 'https://example.com',
        tag: 'x',
        rules: [],
        variants: null,
        domain: null,
      },
    });
    expect(appended[0]!.eventId).not.toBe(link.id);
    expect(claims.get('go')!.state).toBe('committed');
    expect(committed).toEqual(['go']);
  });

  it('answers 409 for a taken custom slug without appending anything', async () => {
    const { d, appended } = deps();
    await createLink(d, account, { destinationUrl: 'https://a.example', customSlug: 'go', tag: null });
    await expect(
      createLink(d, account, { destinationUrl: 'https://b.example', customSlug: 'go', tag: null }),
    ).rejects.toMatchObject({ statusCode: 409, message: 'This slug is already taken' });
    expect(appended).toHaveLength(1);
  });

  it('draws another generated slug on a collision', async () => {
    const drawn = ['abc12', 'abc12', 'def34'];
    const { d } = deps({ newSlug: () => drawn.shift()! });
    expect(
      (await createLink(d, account, { destinationUrl: 'https://a.example', customSlug: null, tag: null })).slug,
    ).toBe('abc12');
    expect(
      (await createLink(d, account, { destinationUrl: 'https://b.example', customSlug: null, tag: null })).slug,
    ).toBe('def34');
  });

  it('gives up with a 503 when every generated slug collides', async () => {
    const { d } = deps();
    await createLink(d, account, { destinationUrl: 'https://a.example', customSlug: null, tag: null });
    await expect(
      createLink(d, account, { destinationUrl: 'https://b.example', customSlug: null, tag: null }),
    ).rejects.toMatchObject({ statusCode: 503, code: 'slug_space_exhausted' });
  });

  it('answers 503 when the append fails, and leaves the claim pending for the settler', async () => {
    const { d, claims, committed } = deps({
      appendLinkCreated: (events) => events.map(async () => Promise.reject(new Error('broker unreachable'))),
    });
    const failure = createLink(d, account, { destinationUrl: 'https://a.example', customSlug: 'go', tag: null });
    await expect(failure).rejects.toBeInstanceOf(HttpError);
    await expect(failure).rejects.toMatchObject({ statusCode: 503, code: 'temporarily_unavailable' });
    expect(claims.get('go')!.state).toBe('pending');
    expect(committed).toEqual([]);
  });

  it('still answers 201 when only the claim commit fails: the event is durable', async () => {
    const errors: string[] = [];
    const { d } = deps();
    const failingCommit: ClaimStore = {
      ...d.claims,
      commitAll: (refs) => refs.map(async () => Promise.reject(new Error('database blip'))),
    };
    const link = await createLink(
      { ...d, claims: failingCommit, onClaimError: (_e, slug) => errors.push(slug) },
      account,
      { destinationUrl: 'https://a.example', customSlug: 'go', tag: null },
    );
    expect(link.slug).toBe('go');
    expect(errors).toEqual(['go']);
  });
});

describe('createLinks (a bulk create)', () => {
  const input = (customSlug: string | null, n: number) => ({
    destinationUrl: `https://example.com/${n}`,
    customSlug,
    tag: null,
  });

  it('given a taken slug, when a batch holds it, a duplicate and fresh slugs, then each gets its own outcome in order, sharing one claim statement and one produce request', async () => {
    const drawn = ['gen01', 'gen01', 'gen02'];
    const { d, appended, statements, requests } = deps({ newSlug: () => drawn.shift()! });
    await createLink(d, account, input('taken', 0));
    statements.length = 0;
    requests.length = 0;

    const outcomes = await createLinks(d, account, [
      input('fresh-a', 1),
      input('taken', 2),
      input(null, 3),
      input('fresh-a', 4),
      input(null, 5),
    ]);

    expect(outcomes.map((o) => (o.ok ? o.link.slug : (o.error as HttpError).statusCode))).toEqual([
      'fresh-a',
      409,
      'gen01',
      409,
      'gen02',
    ]);
    expect(outcomes.map((o) => o.ok && o.link.destinationUrl)).toEqual([
      'https://example.com/1',
      false,
      'https://example.com/3',
      false,
      'https://example.com/5',
    ]);
    // Five claims in one statement, then the one generated slug drawn again alone.
    expect(statements).toEqual([5, 1]);
    expect(requests).toEqual([3]);
    expect(appended.slice(1).map((e) => e.data.slug)).toEqual(['fresh-a', 'gen01', 'gen02']);
  });

  it('given a claim that fails, when it is one of a batch, then only that create fails', async () => {
    const { d } = deps({ newSlug: () => `g${Math.random().toString(36).slice(2, 6)}1` });
    const flaky: ClaimStore = {
      ...d.claims,
      claimAll: (cs) =>
        cs.map((c) => (c.slug === 'poison' ? Promise.reject(new Error('invalid byte sequence')) : d.claims.claim(c))),
    };
    const outcomes = await createLinks({ ...d, claims: flaky }, account, [
      input('left', 1),
      input('poison', 2),
      input(null, 3),
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(outcomes[1]).toMatchObject({ ok: false, error: new Error('invalid byte sequence') });
  });

  it('given a produce request that fails, then its creates answer 503 and the rest of the batch is untouched', async () => {
    const { d, claims, committed } = deps();
    const outcomes = await createLinks(
      {
        ...d,
        appendLinkCreated: (events) =>
          events.map(async (e) => {
            if (e.data.slug === 'lost') throw new Error('not enough replicas');
          }),
      },
      account,
      [input('kept', 1), input('lost', 2)],
    );
    expect(outcomes[0]).toMatchObject({ ok: true, link: { slug: 'kept' } });
    expect(outcomes[1]).toMatchObject({ ok: false, error: { statusCode: 503, code: 'temporarily_unavailable' } });
    expect(claims.get('lost')!.state).toBe('pending');
    expect(committed).toEqual(['kept']);
  });

  it('given no input, then it does nothing', async () => {
    const { d, statements, requests } = deps();
    expect(await createLinks(d, account, [])).toEqual([]);
    expect([statements, requests]).toEqual([[], []]);
  });
});

describe('createLinks under an Idempotency-Key (a retry that took the key over)', () => {
  const input = (customSlug: string | null, n: number) => ({
    destinationUrl: `https://example.com/${n}`,
    customSlug,
    tag: null,
  });
  const ID = 'b5d0c7a2-4f0e-4c3f-9a55-0e6a1f2b3c4d:request-hash';
  /** The first attempt draws its work; a retry that took the key over resumes it. */
  const WORK = { id: ID, resumed: false };
  const RESUMED = { id: ID, resumed: true };
  const FIRST = new Date('2026-11-22T10:00:00.123Z');
  const LATER = new Date('2026-11-22T10:01:30.000Z');
  const lost = (events: readonly LinkCreated[]) =>
    events.map(async () => Promise.reject(new Error('request timed out')));

  it('given an attempt that claimed and could not confirm its append, when the retry runs, then it finishes that claim: the same link, slug, date and event', async () => {
    // Given
    const { d, claims, appended } = deps({ now: () => FIRST });
    const first = await createLinks({ ...d, appendLinkCreated: lost }, account, [input(null, 1)], WORK);
    expect(first[0]).toMatchObject({ ok: false, error: { statusCode: 503 } });
    // When: later, with other slugs to draw
    const [retry] = await createLinks(
      { ...d, now: () => LATER, newSlug: () => 'other' },
      account,
      [input(null, 1)],
      RESUMED,
    );
    // Then
    expect(retry).toMatchObject({ ok: true, link: { slug: 'abc12', createdAt: FIRST.toISOString() } });
    expect([...claims.keys()]).toEqual(['abc12']);
    expect(claims.get('abc12')!.state).toBe('committed');
    const link = retry!.ok ? retry!.link : undefined;
    expect(appended).toEqual([
      expect.objectContaining({ occurredAt: FIRST.toISOString(), data: expect.objectContaining({ linkId: link?.id }) }),
    ]);
  });

  it('given an attempt that claimed a custom slug and died, when the retry runs, then the slug is its own, not taken', async () => {
    const { d, claims } = deps();
    await createLinks({ ...d, appendLinkCreated: lost }, account, [input('mine', 1)], WORK);
    const [retry] = await createLinks(d, account, [input('mine', 1)], RESUMED);
    expect(retry).toMatchObject({ ok: true, link: { slug: 'mine' } });
    expect(claims.get('mine')!.state).toBe('committed');
  });

  it('given an attempt whose link was committed before it could answer, when the retry runs, then it answers that link and appends nothing', async () => {
    const { d, appended, requests } = deps({ now: () => FIRST });
    const [first] = await createLinks(d, account, [input(null, 1), input('two', 2)], WORK);
    const [again, second] = await createLinks(
      { ...d, now: () => LATER, newSlug: () => 'other' },
      account,
      [input(null, 1), input('two', 2)],
      RESUMED,
    );
    expect(again).toEqual(first);
    expect(second).toMatchObject({ ok: true, link: { slug: 'two', createdAt: FIRST.toISOString() } });
    expect([appended.length, requests]).toEqual([2, [2]]);
  });

  it('given a bulk item refused the first time and valid on the retry, then every other link keeps its own (named by its place among all items)', async () => {
    const { d, claims } = deps();
    await createLinks({ ...d, appendLinkCreated: lost }, account, [input('b', 2)], WORK, [1]);
    const [a, b] = await createLinks(
      { ...d, newSlug: () => 'fresh' },
      account,
      [input(null, 1), input('b', 2)],
      RESUMED,
      [0, 1],
    );
    expect(a).toMatchObject({ ok: true, link: { slug: 'fresh', destinationUrl: 'https://example.com/1' } });
    expect(b).toMatchObject({ ok: true, link: { slug: 'b', destinationUrl: 'https://example.com/2' } });
    expect([...claims.values()].map((c) => [c.slug, c.state])).toEqual([
      ['b', 'committed'],
      ['fresh', 'committed'],
    ]);
  });

  it('given another request (other work), then its links are new ones, as without a key', async () => {
    const { d, claims } = deps();
    await createLinks({ ...d, appendLinkCreated: lost }, account, [input(null, 1)], WORK);
    const [other] = await createLinks({ ...d, newSlug: () => 'fresh' }, account, [input(null, 1)], {
      id: `${ID}-other`,
      resumed: true,
    });
    expect(other).toMatchObject({ ok: true, link: { slug: 'fresh' } });
    expect([...claims.keys()].sort()).toEqual(['abc12', 'fresh']);
  });
});

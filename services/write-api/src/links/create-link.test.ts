import type { Account } from '@shortlink/accounts';
import type { LinkCreated } from '@shortlink/events';
import { HttpError } from '@shortlink/http';
import type { Claim, ClaimStore } from './claims';
import { createLink, type CreateLinkDeps } from './create-link';

const account: Account = { id: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c', name: 'Acme', plan: 'pro' };

/** The claim table's rule, in memory: one claim per slug. */
function memoryClaims() {
  const claims = new Map<string, Claim & { state: 'pending' | 'committed' }>();
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
  };
  return { store, claims };
}

function deps(overrides: Partial<CreateLinkDeps> = {}) {
  const { store, claims } = memoryClaims();
  const appended: LinkCreated[] = [];
  const committed: string[] = [];
  let ids = 0;
  const d: CreateLinkDeps = {
    claims: store,
    appendLinkCreated: async (e) => {
      appended.push(e);
    },
    now: () => new Date('2026-11-22T10:00:00.123Z'),
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    newSlug: () => 'abc12',
    publicBaseUrl: 'https://sho.rt',
    onLinkCommitted: (slug) => committed.push(slug),
    onClaimError: () => undefined,
    ...overrides,
  };
  return { d, claims, appended, committed };
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
    });
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      type: 'LinkCreated',
      schemaVersion: 1,
      occurredAt: '2026-11-22T10:00:00.123Z',
      data: { linkId: link.id, accountId: account.id, slug: 'go', destinationUrl: 'https://example.com', tag: 'x' },
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
      appendLinkCreated: async () => {
        throw new Error('broker unreachable');
      },
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
      claim: (c) => d.claims.claim(c),
      commit: async () => {
        throw new Error('database blip');
      },
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

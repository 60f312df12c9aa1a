import { decideLinkChange, type LinkCommand, type LinkDecision, type LinkState } from './decide-link-change';

const OWNER = '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c';
const OTHER = '11111111-2222-4333-8444-555555555555';
const CREATED = new Date('2026-11-20T08:00:00.000Z');
const NOW = new Date('2026-11-22T10:00:00.123Z');
const EVENT_ID = '00000000-0000-4000-8000-000000000009';

const live: LinkState = {
  linkId: '00000000-0000-4000-8000-000000000001',
  accountId: OWNER,
  slug: 'spring',
  domain: null,
  destinationUrl: 'https://example.com/a',
  tag: 'launch',
  createdAt: CREATED,
  updatedAt: null,
  deletedAt: null,
  version: 1,
  routing: null,
};

/** Given a link (or none), when an account sends a command, then this is the decision. */
const given = (current: LinkState | null) => ({
  when: (command: LinkCommand, accountId = OWNER) => ({
    then: (expected: LinkDecision) =>
      expect(decideLinkChange(current, accountId, command, { eventId: EVENT_ID, now: NOW })).toEqual(expected),
  }),
});

describe('decideLinkChange', () => {
  it('changes the destination: LinkUpdated with the whole new state, the next version and what changed', () => {
    given(live)
      .when({ kind: 'update', changes: { destinationUrl: 'https://example.com/b' } })
      .then({
        kind: 'changed',
        state: { ...live, destinationUrl: 'https://example.com/b', updatedAt: NOW, version: 2 },
        event: {
          eventId: EVENT_ID,
          type: 'LinkUpdated',
          schemaVersion: 2,
          occurredAt: NOW.toISOString(),
          data: {
            linkId: live.linkId,
            accountId: OWNER,
            slug: 'spring',
            version: 2,
            destinationUrl: 'https://example.com/b',
            tag: 'launch',
            changedFields: ['destinationUrl'],
            rules: [],
            variants: null,
            domain: null,
          },
        },
      });
  });

  it('removes the tag with null, keeping the destination', () => {
    const decision = decideLinkChange(
      { ...live, version: 4 },
      OWNER,
      { kind: 'update', changes: { tag: null } },
      {
        eventId: EVENT_ID,
        now: NOW,
      },
    );
    expect(decision).toMatchObject({
      kind: 'changed',
      state: { tag: null, destinationUrl: 'https://example.com/a', version: 5 },
      event: { data: { tag: null, destinationUrl: 'https://example.com/a', version: 5, changedFields: ['tag'] } },
    });
  });

  const RULES = [{ when: { device: ['mobile' as const] }, destinationUrl: 'https://example.com/m' }];
  const VARIANTS = [
    { destinationUrl: 'https://example.com/x', weight: 50 },
    { destinationUrl: 'https://example.com/y', weight: 50 },
  ];

  it('replaces the rules whole and keeps the variants; the event carries both whole and names what changed', () => {
    const routed = { ...live, routing: { rules: [], variants: VARIANTS } };
    expect(
      decideLinkChange(routed, OWNER, { kind: 'update', changes: { rules: RULES } }, { eventId: EVENT_ID, now: NOW }),
    ).toMatchObject({
      kind: 'changed',
      state: { routing: { rules: RULES, variants: VARIANTS }, version: 2 },
      event: { schemaVersion: 2, data: { rules: RULES, variants: VARIANTS, domain: null, changedFields: ['rules'] } },
    });
  });

  it('clears rules with [] and variants with null: the state holds no routing (null), as a link that never had any', () => {
    const routed = { ...live, routing: { rules: RULES, variants: VARIANTS } };
    expect(
      decideLinkChange(
        routed,
        OWNER,
        { kind: 'update', changes: { rules: [], variants: null } },
        { eventId: EVENT_ID, now: NOW },
      ),
    ).toMatchObject({
      kind: 'changed',
      state: { routing: null },
      event: { data: { rules: [], variants: null, changedFields: ['rules', 'variants'] } },
    });
  });

  it('appends nothing for the same rules and variants again, nor for [] on a link without rules', () => {
    const routed = { ...live, routing: { rules: RULES, variants: VARIANTS } };
    given(routed)
      .when({ kind: 'update', changes: { rules: structuredClone(RULES), variants: structuredClone(VARIANTS) } })
      .then({ kind: 'unchanged', state: routed });
    given(live)
      .when({ kind: 'update', changes: { rules: [], variants: null } })
      .then({ kind: 'unchanged', state: live });
  });

  it('appends nothing when the request asks for what the link already is', () => {
    given(live)
      .when({ kind: 'update', changes: { destinationUrl: 'https://example.com/a', tag: 'launch' } })
      .then({ kind: 'unchanged', state: live });
  });

  it('dates a change no earlier than the state it follows (a slower clock, or a wait for the row lock)', () => {
    const later = new Date(NOW.getTime() + 5_000);
    const changed = { ...live, updatedAt: later, version: 2 };
    given(changed)
      .when({ kind: 'update', changes: { tag: 'autumn' } })
      .then({
        kind: 'changed',
        state: { ...changed, tag: 'autumn', updatedAt: later, version: 3 },
        event: {
          eventId: EVENT_ID,
          type: 'LinkUpdated',
          schemaVersion: 2,
          occurredAt: later.toISOString(),
          data: {
            linkId: live.linkId,
            accountId: OWNER,
            slug: 'spring',
            version: 3,
            destinationUrl: live.destinationUrl,
            tag: 'autumn',
            changedFields: ['tag'],
            rules: [],
            variants: null,
            domain: null,
          },
        },
      });
    const created = { ...live, createdAt: later };
    given(created)
      .when({ kind: 'delete' })
      .then({
        kind: 'changed',
        state: { ...created, deletedAt: later, updatedAt: later, version: 2 },
        event: {
          eventId: EVENT_ID,
          type: 'LinkDeleted',
          schemaVersion: 1,
          occurredAt: later.toISOString(),
          data: { linkId: live.linkId, accountId: OWNER, slug: 'spring', version: 2 },
        },
      });
  });

  it('deletes: LinkDeleted with the next version, and the state marked deleted', () => {
    given(live)
      .when({ kind: 'delete' })
      .then({
        kind: 'changed',
        state: { ...live, deletedAt: NOW, updatedAt: NOW, version: 2 },
        event: {
          eventId: EVENT_ID,
          type: 'LinkDeleted',
          schemaVersion: 1,
          occurredAt: NOW.toISOString(),
          data: { linkId: live.linkId, accountId: OWNER, slug: 'spring', version: 2 },
        },
      });
  });

  it.each<[string, LinkState | null, LinkCommand, string]>([
    ['an unknown slug', null, { kind: 'update', changes: { tag: 'x' } }, OWNER],
    ['another account’s link (update)', live, { kind: 'update', changes: { tag: 'x' } }, OTHER],
    ['another account’s link (delete)', live, { kind: 'delete' }, OTHER],
    [
      'a deleted link (update)',
      { ...live, deletedAt: NOW, version: 2 },
      { kind: 'update', changes: { tag: 'x' } },
      OWNER,
    ],
    ['a deleted link (delete again)', { ...live, deletedAt: NOW, version: 2 }, { kind: 'delete' }, OWNER],
  ])('answers "not found" for %s', (_name, current, command, accountId) => {
    given(current).when(command, accountId).then({ kind: 'not-found' });
  });

  it('neither changes nor denies the owner’s link whose create is not settled; another account’s is not found', () => {
    const unsettled: LinkState = { ...live, unsettled: true };
    given(unsettled)
      .when({ kind: 'update', changes: { destinationUrl: 'https://example.com/b' } })
      .then({ kind: 'not-settled' });
    given(unsettled).when({ kind: 'delete' }).then({ kind: 'not-settled' });
    given(unsettled)
      .when({ kind: 'update', changes: { destinationUrl: 'https://example.com/b' } }, OTHER)
      .then({ kind: 'not-found' });
  });
});

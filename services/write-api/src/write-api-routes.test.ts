import type { DomainStore } from '@shortlink/domains';
import { generateApiKey, memoryApiKeys, memoryRateLimiter } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { FastifyInstance } from 'fastify';
import { createWriteApi, type WriteApiDeps } from './app';
import { memoryWebhookStore } from './webhooks/stores/memory-webhook-store';

/**
 * The write API's routes as a process serves them (buildProcessServer, the
 * real authenticator, rate limiter, validation and error handler), on
 * in-memory stores that keep the Postgres stores' rules: one claim per slug,
 * a link's state in its claim, its events in an outbox until the log takes them.
 */

type ClaimStore = WriteApiDeps['claims'];
type Claim = Parameters<ClaimStore['claim']>[0];
type LinkChangeStore = WriteApiDeps['changes'];
type LinkState = NonNullable<Parameters<Parameters<LinkChangeStore['change']>[1]>[0]>;
type LinkWriteEvent = Parameters<WriteApiDeps['appendLinkEvent']>[0];
type IdempotencyStore = WriteApiDeps['idempotency']['store'];
type StoredResponse = Parameters<IdempotencyStore['complete']>[2];

const BASE_URL = 'https://sho.rt';
const NOW = new Date('2026-11-22T10:00:00.123Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The table `slug_claims` in memory: a claim per slug, holding its link's state, and each link's outbox. */
function memoryLinks() {
  const rows = new Map<
    string,
    Claim & { state: 'pending' | 'committed'; updatedAt: Date | null; deletedAt: Date | null; version: number }
  >();
  const outbox = new Map<string, LinkWriteEvent[]>();
  const claims: ClaimStore = {
    async claim(c) {
      if (rows.has(c.slug)) return false;
      rows.set(c.slug, { ...c, state: 'pending', updatedAt: null, deletedAt: null, version: 1 });
      return true;
    },
    async commit(slug, linkId) {
      const row = rows.get(slug);
      if (row?.linkId === linkId) row.state = 'committed';
    },
    claimAll: (cs) => cs.map((c) => claims.claim(c)),
    commitAll: (refs) => refs.map((r) => claims.commit(r.slug, r.linkId)),
    async findOwn(linkIds) {
      return [...rows.values()]
        .filter((r) => linkIds.includes(r.linkId))
        .map(({ slug, linkId, state, createdAt }) => ({ slug, linkId, state, createdAt }));
    },
  };
  const changes: LinkChangeStore = {
    async change(slug, decide) {
      const row = rows.get(slug);
      const current: LinkState | null = row
        ? {
            linkId: row.linkId,
            accountId: row.accountId,
            slug,
            domain: null,
            destinationUrl: row.destinationUrl,
            tag: row.tag,
            createdAt: row.createdAt,
            updatedAt: row.updatedAt,
            deletedAt: row.deletedAt,
            version: row.version,
            routing: row.routing ?? null,
            ...(row.state === 'pending' ? { unsettled: true as const } : {}),
          }
        : null;
      const decision = decide(current);
      if (row && decision.kind === 'changed') {
        const { state, event } = decision;
        Object.assign(row, {
          destinationUrl: state.destinationUrl,
          tag: state.tag,
          updatedAt: state.updatedAt,
          deletedAt: state.deletedAt,
          version: state.version,
          routing: state.routing,
          state: 'committed',
        });
        outbox.set(slug, [...(outbox.get(slug) ?? []), event]);
      }
      return decision;
    },
    async publish(slug, append) {
      const waiting = outbox.get(slug) ?? [];
      let published = 0;
      while (waiting.length > 0) {
        await append(waiting[0] as LinkWriteEvent);
        waiting.shift();
        published++;
      }
      return published;
    },
  };
  return { rows, outbox, claims, changes };
}

/** The table `idempotency_keys` in memory: a key is held, answered, or released for its retry to take over. */
function memoryIdempotencyStore(): IdempotencyStore {
  const keys = new Map<
    string,
    { requestHash: string; owner: string | null; workId: string; response: StoredResponse | null }
  >();
  let drawn = 0;
  return {
    async begin(ref, requestHash) {
      const id = `${ref.accountId}/${ref.key}`;
      const entry = keys.get(id);
      const owner = `owner-${++drawn}`;
      if (entry === undefined) {
        keys.set(id, { requestHash, owner, workId: `work-${drawn}`, response: null });
        return { kind: 'acquired', owner, workId: `work-${drawn}`, resumed: false };
      }
      if (entry.owner === null && entry.response === null && entry.requestHash === requestHash) {
        entry.owner = owner;
        return { kind: 'acquired', owner, workId: entry.workId, resumed: true };
      }
      return { kind: 'seen', seen: { requestHash: entry.requestHash, response: entry.response } };
    },
    async complete(ref, owner, response) {
      const entry = keys.get(`${ref.accountId}/${ref.key}`);
      if (entry?.owner === owner) entry.response = response;
    },
    async release(ref, owner) {
      const entry = keys.get(`${ref.accountId}/${ref.key}`);
      if (entry?.owner === owner) entry.owner = null;
    },
    purgeExpired: async () => 0,
  };
}

/** Three accounts' keys, as the key table holds them. */
const keyTable = memoryApiKeys();
const owner = keyTable.issue('owner', 'pro');
const other = keyTable.issue('other', 'pro');
const free = keyTable.issue('free', 'free');
const revoked = generateApiKey();

let app: FastifyInstance;
afterEach(() => app?.close());

async function writeApi(overrides: Partial<WriteApiDeps> = {}) {
  const links = memoryLinks();
  const appended: LinkWriteEvent[] = [];
  let ids = 0;
  const slugs = ['ab3cd', 'ef5gh', 'ij7kl'];
  const deps: WriteApiDeps = {
    authenticate: keyTable.authenticate,
    rateLimiter: memoryRateLimiter({ free: 100, pro: 1000 }),
    idempotency: { store: memoryIdempotencyStore(), waitMs: 0, now: Date.now, sleep: async () => undefined },
    claims: links.claims,
    changes: links.changes,
    appendLinkCreated: (events) => events.map(async (e) => void appended.push(e)),
    appendLinkEvent: async (e) => void appended.push(e),
    redirectors: {
      expect: () => ({ settle: async () => ({ leased: 0, confirmed: 0, lapsed: 0 }), cancel: () => undefined }),
    },
    now: () => NOW,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    newSlug: () => slugs.shift() ?? 'zz9zz',
    publicBaseUrl: BASE_URL,
    onClaimError: () => undefined,
    webhooks: {
      store: memoryWebhookStore().store,
      sealingKey: async () => Buffer.alloc(32, 7),
      allowHttp: false,
      allowPrivateNetworks: false,
      now: () => NOW,
      newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    },
    // The domains API is tested on Postgres and DNS (domains-api.int.test.ts); here nothing reaches it.
    domains: {
      store: {} as DomainStore,
      lookupTxt: async () => ({ kind: 'none' }),
      redirectors: {
        expect: () => ({ settle: async () => ({ leased: 0, confirmed: 0, lapsed: 0 }), cancel: () => {} }),
      },
    },
    ...overrides,
  };
  app = await buildProcessServer(
    [createWriteApi(deps)],
    { name: 'write-api', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  return { app, links, appended };
}

const create = (payload: unknown, authorization = owner.authorization, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization, ...headers },
    payload: payload as object,
  });
const update = (slug: string, payload: unknown, authorization = owner.authorization) =>
  app.inject({ method: 'PATCH', url: `/api/v1/links/${slug}`, headers: { authorization }, payload: payload as object });
const remove = (slug: string, authorization = owner.authorization) =>
  app.inject({ method: 'DELETE', url: `/api/v1/links/${slug}`, headers: { authorization } });

describe('POST /api/v1/links', () => {
  it('answers 201 with the Link object and its Location once LinkCreated is appended', async () => {
    const { appended, links } = await writeApi();
    const res = await create({ url: 'https://example.com/summer', customSlug: 'summer', tag: 'newsletter' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.location).toBe('https://sho.rt/summer');
    expect(res.headers['ratelimit-limit']).toBe('1000');
    const link = res.json();
    expect(link).toEqual({
      id: expect.stringMatching(UUID),
      slug: 'summer',
      shortUrl: 'https://sho.rt/summer',
      destinationUrl: 'https://example.com/summer',
      tag: 'newsletter',
      createdAt: '2026-11-22T10:00:00.123Z',
      updatedAt: '2026-11-22T10:00:00.123Z',
      rules: [],
      variants: null,
      domain: null,
    });
    expect(appended).toEqual([
      expect.objectContaining({
        type: 'LinkCreated',
        data: expect.objectContaining({ linkId: link.id, accountId: 'account-owner', slug: 'summer' }),
      }),
    ]);
    expect(links.rows.get('summer')?.state).toBe('committed');
  });

  it('takes rules and variants, answers them in the link, carries them in LinkCreated v2; PATCH replaces each whole', async () => {
    const { appended } = await writeApi();
    const rules = [
      { when: { device: ['mobile'], country: ['DE', 'AT'] }, destinationUrl: 'https://example.com/de-app' },
      { when: { query: { name: 'src', values: ['mail'] } }, destinationUrl: 'https://example.com/mail' },
    ];
    const variants = [
      { destinationUrl: 'https://example.com/a', weight: 30 },
      { destinationUrl: 'https://example.com/b', weight: 70 },
    ];
    const res = await create({ url: 'https://example.com/x', customSlug: 'routed', rules, variants });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ rules, variants });
    expect(appended.at(-1)).toMatchObject({ schemaVersion: 2, data: { rules, variants, domain: null } });

    const cleared = await update('routed', { rules: [] });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ rules: [], variants });
    expect(appended.at(-1)).toMatchObject({
      type: 'LinkUpdated',
      schemaVersion: 2,
      data: { rules: [], variants, changedFields: ['rules'] },
    });
    const none = await update('routed', { variants: null });
    expect(none.json()).toMatchObject({ rules: [], variants: null });
    expect(appended.at(-1)).toMatchObject({ data: { changedFields: ['variants'] } });
  });

  it.each([
    [
      'a rule of an unknown condition',
      { rules: [{ when: { planet: ['mars'] }, destinationUrl: 'https://e.x' }] },
      'invalid_rules',
      'rules[0].when.planet',
    ],
    [
      'weights not summing to 100',
      {
        variants: [
          { destinationUrl: 'https://e.x/a', weight: 50 },
          { destinationUrl: 'https://e.x/b', weight: 40 },
        ],
      },
      'invalid_variants',
      'variants',
    ],
    [
      'a rule sending to this service',
      { rules: [{ when: { device: ['mobile'] }, destinationUrl: 'https://sho.rt/x' }] },
      'url_self_reference',
      'rules[0].destinationUrl',
    ],
  ])('answers 400 for %s, on create and PATCH alike, naming the part', async (_name, routing, code, field) => {
    const { appended } = await writeApi();
    await create({ url: 'https://example.com/x', customSlug: 'plain' });
    const before = appended.length;
    for (const res of [await create({ url: 'https://example.com/y', ...routing }), await update('plain', routing)]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code, field });
    }
    expect(appended).toHaveLength(before);
  });

  it('draws a slug when none is given', async () => {
    await writeApi();
    const res = await create({ url: 'https://example.com' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ slug: 'ab3cd', shortUrl: 'https://sho.rt/ab3cd', tag: null });
  });

  it.each([
    ['no url', { tag: 'x' }],
    ['a url that is not a URL', { url: 'not a url' }],
    ['a url that is not HTTP', { url: 'ftp://example.com/file' }],
    ['a body that is not an object', ['https://example.com']],
  ])('answers 400 "Invalid request body" for %s', async (_, body) => {
    await writeApi();
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid request body', code: 'invalid_body' });
  });

  it('answers 400 "Invalid request body" for a body that is not JSON', async () => {
    await writeApi();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: owner.authorization, 'content-type': 'application/json' },
      payload: '{"url":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid request body', code: 'invalid_body' });
  });

  it.each(['ab', 'Summer', 'sum_mer', 'a'.repeat(31)])('answers 400 for the custom slug %j', async (customSlug) => {
    await writeApi();
    const res = await create({ url: 'https://example.com', customSlug });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Custom slugs must be 3-30 characters/);
    expect(res.json().code).toBe('invalid_slug');
  });

  it.each(['api', 'admin', 'docs'])('answers 400 "This slug is reserved" for %j', async (customSlug) => {
    const { appended } = await writeApi();
    const res = await create({ url: 'https://example.com', customSlug });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'This slug is reserved', code: 'slug_reserved' });
    expect(appended).toEqual([]);
  });

  it('answers 409 "This slug is already taken" for a slug any account holds', async () => {
    const { appended } = await writeApi();
    expect((await create({ url: 'https://a.example', customSlug: 'taken' })).statusCode).toBe(201);
    const res = await create({ url: 'https://b.example', customSlug: 'taken' }, other.authorization);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'This slug is already taken',
      code: 'slug_taken',
      detail: 'Another link has the slug "taken": choose another customSlug, or leave it out for a generated one.',
      field: 'customSlug',
    });
    expect(appended).toHaveLength(1);
  });

  it('answers 403 for a three-character slug on the free plan, and 201 on Pro', async () => {
    await writeApi();
    const res = await create({ url: 'https://example.com', customSlug: 'abc' }, free.authorization);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      error: 'Custom slugs shorter than 4 characters require the Pro plan',
      code: 'plan_upgrade_required',
    });
    expect((await create({ url: 'https://example.com', customSlug: 'abc' })).statusCode).toBe(201);
  });

  it('answers 503 with Retry-After when the event log does not acknowledge the link', async () => {
    await writeApi({ appendLinkCreated: (events) => events.map(async () => Promise.reject(new Error('no broker'))) });
    const res = await create({ url: 'https://example.com', customSlug: 'summer' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('60');
    expect(res.json().code).toBe('temporarily_unavailable');
  });

  it('answers a retry under the same Idempotency-Key with the first response, and 422 for another body', async () => {
    const { appended } = await writeApi();
    const key = { 'idempotency-key': 'order-42' };
    const first = await create({ url: 'https://example.com', customSlug: 'summer' }, owner.authorization, key);
    const again = await create({ url: 'https://example.com', customSlug: 'summer' }, owner.authorization, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe('https://sho.rt/summer');
    expect(again.body).toBe(first.body);
    expect(appended).toHaveLength(1);
    const reused = await create({ url: 'https://other.example' }, owner.authorization, key);
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toEqual({
      error: 'This Idempotency-Key was already used with a different request',
      code: 'idempotency_key_reused',
      detail:
        'This key was first sent, within the last 24 hours, with another method, path or body: use a new key for a new request.',
    });
  });
});

describe('POST /api/v1/links/bulk', () => {
  it('answers 200 with one result per link, in request order, each failure its own', async () => {
    const { appended } = await writeApi();
    await create({ url: 'https://a.example', customSlug: 'taken' });
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/links/bulk',
      headers: { authorization: owner.authorization },
      payload: {
        links: [
          { url: 'https://b.example', customSlug: 'fresh' },
          { url: 'https://c.example', customSlug: 'taken' },
          { url: 'https://d.example', customSlug: 'api' },
          { customSlug: 'nourl' },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      results: [
        { status: 201, link: expect.objectContaining({ slug: 'fresh', shortUrl: 'https://sho.rt/fresh' }) },
        { status: 409, error: 'This slug is already taken', code: 'slug_taken', field: 'customSlug' },
        { status: 400, error: 'This slug is reserved', code: 'slug_reserved' },
        { status: 400, error: 'Invalid request body', code: 'invalid_body' },
      ],
    });
    expect(appended.map((e) => e.data.slug)).toEqual(['taken', 'fresh']);
  });

  it('answers 400 for an empty batch and 401 without a key', async () => {
    await writeApi();
    const empty = await app.inject({
      method: 'POST',
      url: '/api/v1/links/bulk',
      headers: { authorization: owner.authorization },
      payload: { links: [] },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'Bulk requests must hold 1-100 links', code: 'invalid_bulk_size' });
    const anonymous = await app.inject({ method: 'POST', url: '/api/v1/links/bulk', payload: { links: [] } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('PATCH /api/v1/links/:slug', () => {
  it('answers 200 with the changed link, and appends LinkUpdated', async () => {
    const { appended, links } = await writeApi();
    await create({ url: 'https://example.com/old', customSlug: 'summer', tag: 'a' });
    const res = await update('summer', { url: 'https://example.com/new', tag: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      slug: 'summer',
      shortUrl: 'https://sho.rt/summer',
      destinationUrl: 'https://example.com/new',
      tag: null,
    });
    expect(appended.map((e) => e.type)).toEqual(['LinkCreated', 'LinkUpdated']);
    expect(appended[1]?.data).toMatchObject({ slug: 'summer', version: 2, changedFields: ['destinationUrl', 'tag'] });
    expect(links.outbox.get('summer')).toEqual([]);
  });

  it.each([
    [{ customSlug: 'other' }, 'Only url, tag, rules and variants can be changed', 'unknown_field'],
    [{}, 'Nothing to change: give url, tag or both', 'empty_change'],
    [{ url: 'mailto:a@example.com' }, 'Invalid request body', 'invalid_body'],
  ])('answers 400 for %j', async (body, error, code) => {
    await writeApi();
    await create({ url: 'https://example.com', customSlug: 'summer' });
    const res = await update('summer', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error, code });
  });

  it('answers 404 for another account’s link, an unknown slug and a path that is no slug, and changes nothing', async () => {
    const { appended } = await writeApi();
    await create({ url: 'https://example.com', customSlug: 'summer' });
    for (const [slug, authorization] of [
      ['summer', other.authorization],
      ['unknown', owner.authorization],
      ['NOT_A_SLUG', owner.authorization],
    ] as const) {
      const res = await update(slug, { url: 'https://evil.example' }, authorization);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'Link not found',
        code: 'not_found',
        detail: `This account has no link "${slug}" (or it was deleted).`,
      });
    }
    expect(appended.map((e) => e.type)).toEqual(['LinkCreated']);
  });

  it('answers 503 with Retry-After for the owner’s link whose creation is not settled', async () => {
    const { links } = await writeApi();
    await links.claims.claim({
      slug: 'pending',
      linkId: '00000000-0000-4000-8000-0000000000aa',
      accountId: 'account-owner',
      destinationUrl: 'https://example.com',
      tag: null,
      createdAt: NOW,
    });
    const res = await update('pending', { tag: 'x' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json().error).toBe('This link’s creation is not confirmed yet. Try again in a moment.');
    // Another account's pending claim is no more than "not found".
    expect((await update('pending', { tag: 'x' }, other.authorization)).statusCode).toBe(404);
  });
});

describe('DELETE /api/v1/links/:slug', () => {
  it('answers 204 with no body, and then 404 for the link', async () => {
    const { appended } = await writeApi();
    await create({ url: 'https://example.com', customSlug: 'summer' });
    const res = await remove('summer');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(appended.map((e) => e.type)).toEqual(['LinkCreated', 'LinkDeleted']);
    expect((await remove('summer')).statusCode).toBe(404);
    expect((await update('summer', { tag: 'x' })).statusCode).toBe(404);
    // Its slug is never given out again.
    expect((await create({ url: 'https://example.com', customSlug: 'summer' })).statusCode).toBe(409);
  });

  it('answers 404 for another account’s link and leaves it', async () => {
    const { links } = await writeApi();
    await create({ url: 'https://example.com', customSlug: 'summer' });
    const res = await remove('summer', other.authorization);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'Link not found',
      code: 'not_found',
      detail: 'This account has no link "summer" (or it was deleted).',
    });
    expect(links.rows.get('summer')?.deletedAt).toBeNull();
  });
});

describe('authentication on every route', () => {
  const routes = [
    ['POST', '/api/v1/links', { url: 'https://example.com' }],
    ['POST', '/api/v1/links/bulk', { links: [{ url: 'https://example.com' }] }],
    ['PATCH', '/api/v1/links/summer', { tag: 'x' }],
    ['DELETE', '/api/v1/links/summer', undefined],
  ] as const;

  it.each(routes)(
    '%s %s answers 401 with WWW-Authenticate without a key, or with one unknown or malformed',
    async (method, url, payload) => {
      const { appended } = await writeApi();
      for (const authorization of [undefined, `Bearer ${revoked.key}`, 'Bearer not-a-key', `Basic ${revoked.key}`]) {
        const res = await app.inject({
          method,
          url,
          headers: authorization === undefined ? {} : { authorization },
          ...(payload === undefined ? {} : { payload }),
        });
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect(res.json()).toMatchObject({ error: 'Unauthorized', code: 'unauthorized' });
      }
      expect(appended).toEqual([]);
    },
  );
});

describe('what each mistake answers: the spec’s text and code, and a detail saying what is wrong', () => {
  const json = { 'content-type': 'application/json' };
  const invalidBody = { error: 'Invalid request body', code: 'invalid_body' };
  const unknownField = {
    error: 'Only url, customSlug, tag, rules, variants and domain can be given',
    code: 'unknown_field',
  };
  const slugFormat = {
    error: 'Custom slugs must be 3-30 characters long and use only lowercase letters, digits and hyphens',
    code: 'invalid_slug',
  };
  const mediaType = {
    error: 'Unsupported Media Type: send the body as JSON with Content-Type: application/json',
    code: 'unsupported_media_type',
  };
  const methodNotAllowed = { error: 'Method Not Allowed', code: 'method_not_allowed' };
  type Mistake = [
    name: string,
    request: {
      method?: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      url?: string;
      headers?: Record<string, string>;
      payload?: string;
    },
    status: number,
    body: Record<string, string>,
  ];
  const mistakes: Mistake[] = [
    [
      'curl -d: a form body',
      { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'url=https://example.com' },
      415,
      {
        ...mediaType,
        detail: `Content-Type is "application/x-www-form-urlencoded" (curl -d sends it: add -H 'Content-Type: application/json'); expected application/json.`,
      },
    ],
    [
      'no Content-Type',
      { headers: {}, payload: '{"url":"https://example.com"}' },
      415,
      { ...mediaType, detail: 'The request has a body but no Content-Type: send it as application/json.' },
    ],
    [
      'text/plain',
      { headers: { 'content-type': 'text/plain' }, payload: '{"url":"https://example.com"}' },
      415,
      { ...mediaType, detail: 'Content-Type is "text/plain"; expected application/json.' },
    ],
    [
      'a trailing comma',
      { payload: '{"url": "https://example.com",}' },
      400,
      {
        ...invalidBody,
        detail:
          'The body is not valid JSON at position 30 (near "mple.com",}"): a trailing comma, a missing quote or an unquoted name?',
      },
    ],
    [
      'an empty body',
      { payload: '' },
      400,
      { ...invalidBody, detail: 'The request has no body: expected a JSON object.' },
    ],
    [
      'an array body',
      { payload: '[{"url":"https://example.com"}]' },
      400,
      { ...invalidBody, detail: 'The body is an array: expected a JSON object.' },
    ],
    [
      'a URL without a scheme',
      { payload: '{"url":"example.com/summer"}' },
      400,
      {
        ...invalidBody,
        field: 'url',
        detail: 'url has no scheme: expected it to start with http:// or https://; received "example.com/summer".',
      },
    ],
    [
      'an ftp: URL',
      { payload: '{"url":"ftp://example.com/file"}' },
      400,
      { ...invalidBody, field: 'url', detail: `url's scheme is "ftp:"; expected http:// or https://.` },
    ],
    [
      'surrounding spaces',
      { payload: '{"url":" https://example.com "}' },
      400,
      {
        ...invalidBody,
        field: 'url',
        detail: 'url has white space before or after it: received " https://example.com ".',
      },
    ],
    [
      'no url',
      { payload: '{"tag":"x"}' },
      400,
      { ...invalidBody, field: 'url', detail: 'url is missing: expected an absolute http or https URL.' },
    ],
    [
      'a long URL, echoed 40 characters at most, an escaped control character counting six',
      { payload: JSON.stringify({ url: `https://example.com/\u0007${'a'.repeat(100)}` }) },
      400,
      {
        ...invalidBody,
        field: 'url',
        detail: `url holds a control character: received "https://example.com/\\u0007${'a'.repeat(14)}…".`,
      },
    ],
    [
      'slug for customSlug',
      { payload: '{"url":"https://example.com","slug":"promo"}' },
      400,
      {
        ...unknownField,
        field: 'slug',
        detail:
          'Unknown field "slug": did you mean customSlug? Fields: url, customSlug, tag, rules, variants and domain.',
      },
    ],
    [
      'destination for url',
      { payload: '{"destination":"https://example.com"}' },
      400,
      {
        ...unknownField,
        field: 'destination',
        detail:
          'Unknown field "destination": did you mean url? Fields: url, customSlug, tag, rules, variants and domain.',
      },
    ],
    [
      'tags for tag',
      { payload: '{"url":"https://example.com","tags":"a"}' },
      400,
      {
        ...unknownField,
        field: 'tags',
        detail: 'Unknown field "tags": did you mean tag? Fields: url, customSlug, tag, rules, variants and domain.',
      },
    ],
    [
      'a field that is no near miss',
      { payload: '{"url":"https://example.com","expires":"2030-01-01"}' },
      400,
      {
        ...unknownField,
        field: 'expires',
        detail: 'Unknown field "expires" Fields: url, customSlug, tag, rules, variants and domain.',
      },
    ],
    [
      'a custom slug holding U+0000',
      { payload: '{"url":"https://example.com","customSlug":"pro\\u0000mo"}' },
      400,
      {
        ...slugFormat,
        field: 'customSlug',
        detail: 'customSlug may hold only a-z, 0-9 and "-"; received "pro\\u0000mo".',
      },
    ],
    [
      'a custom slug holding a lone surrogate',
      { payload: '{"url":"https://example.com","customSlug":"\\ud800abc"}' },
      400,
      {
        ...slugFormat,
        field: 'customSlug',
        detail: 'customSlug may hold only a-z, 0-9 and "-"; received "\\ud800abc".',
      },
    ],
    [
      'a tag holding U+0000',
      { payload: '{"url":"https://example.com","tag":"a\\u0000"}' },
      400,
      { ...invalidBody, field: 'tag', detail: 'tag holds U+0000 or a lone surrogate, which no text field may hold.' },
    ],
    [
      'PUT on a link',
      { method: 'PUT', url: '/api/v1/links/summer', payload: '{"url":"https://example.com"}' },
      405,
      { ...methodNotAllowed, detail: 'This path takes PATCH, DELETE, not PUT.' },
    ],
    [
      'DELETE on the links',
      { method: 'DELETE', url: '/api/v1/links' },
      405,
      { ...methodNotAllowed, detail: 'This path takes POST, not DELETE.' },
    ],
  ];

  it.each(mistakes)('%s', async (_name, request, status, body) => {
    const { appended } = await writeApi();
    const res = await app.inject({
      method: request.method ?? 'POST',
      url: request.url ?? '/api/v1/links',
      headers: { authorization: owner.authorization, ...(request.headers ?? json) },
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    });
    expect([res.statusCode, res.json()]).toEqual([status, body]);
    if (status === 405) expect(res.headers.allow).toBe(body.detail?.replace(/^This path takes (.*), not .*$/, '$1'));
    expect(appended).toEqual([]);
  });

  it('checks each link of a bulk create the same way, its custom slug included', async () => {
    await writeApi();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/links/bulk',
      headers: { authorization: owner.authorization, ...json },
      payload:
        '{"links":[{"url":"https://example.com","customSlug":"a\\u0000b"},{"url":"https://example.com","slug":"promo"}]}',
    });
    expect(res.json()).toEqual({
      results: [
        {
          status: 400,
          ...slugFormat,
          field: 'customSlug',
          detail: 'customSlug may hold only a-z, 0-9 and "-"; received "a\\u0000b".',
        },
        {
          status: 400,
          ...unknownField,
          field: 'slug',
          detail:
            'Unknown field "slug": did you mean customSlug? Fields: url, customSlug, tag, rules, variants and domain.',
        },
      ],
    });
  });

  it('refuses a bulk body naming a field other than links, naming the one meant', async () => {
    await writeApi();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/links/bulk',
      headers: { authorization: owner.authorization, ...json },
      payload: '{"link":[{"url":"https://example.com"}]}',
    });
    expect([res.statusCode, res.json()]).toEqual([
      400,
      {
        error: 'Only links can be given',
        code: 'unknown_field',
        field: 'link',
        detail: 'Unknown field "link": did you mean links? Field: links.',
      },
    ]);
  });

  it('answers a PATCH of an unknown field as a create does, naming it', async () => {
    await writeApi();
    await create({ url: 'https://example.com', customSlug: 'summer' });
    const res = await update('summer', { utl: 'https://example.com/b' });
    expect(res.json()).toEqual({
      error: 'Only url, tag, rules and variants can be changed',
      code: 'unknown_field',
      field: 'utl',
      detail: 'Unknown field "utl": did you mean url? Fields: url, tag, rules and variants.',
    });
  });
});

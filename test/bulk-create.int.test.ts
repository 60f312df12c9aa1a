import { createAccountWithKey } from '@shortlink/accounts';
import { requestHash } from '@shortlink/service-write-api';
import { PUBLIC_BASE_URL, startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * Bulk create and Idempotency-Key on the real stack (Kafka, Postgres), composed
 * as `npm start` composes it. The same cases over real HTTP, in both modes, are
 * in the API contract suite.
 */
let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

function post(path: string, body: unknown, key = system.proKey, headers: Record<string, string> = {}) {
  return system.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
const bulk = (body: unknown, key?: string, headers?: Record<string, string>) =>
  post('/api/v1/links/bulk', body, key, headers);
const create = (body: unknown, key?: string, headers?: Record<string, string>) =>
  post('/api/v1/links', body, key, headers);

/** Claims (taken or committed) whose destination starts with the prefix: the links a test made. */
async function claimsFor(prefix: string): Promise<number> {
  const { rows } = await system.infra.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM slug_claims WHERE destination_url LIKE $1 || '%'`,
    [prefix],
  );
  return Number(rows[0]!.n);
}

describe('POST /api/v1/links/bulk', () => {
  it('creates 100 links at once, each poisoned link failing alone with its own error, in request order', async () => {
    expect((await create({ url: 'https://example.com/first', customSlug: 'bulk-taken' })).statusCode).toBe(201);
    const links: unknown[] = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0
        ? { url: `https://example.com/bulk/${i}`, customSlug: `bulk-${i}`, tag: `t${i}` }
        : { url: `https://example.com/bulk/${i}` },
    );
    const poison: Record<number, [unknown, number, string]> = {
      3: [{ url: 'https://example.com/bulk/3', customSlug: 'admin' }, 400, 'slug_reserved'],
      17: [{ url: 'https://example.com/bulk/17', customSlug: 'bulk-taken' }, 409, 'slug_taken'],
      31: [{ url: 'not a url' }, 400, 'invalid_body'],
      45: [{ url: 'https://example.com/bulk/\u0000' }, 400, 'invalid_body'],
      59: [{ url: 'https://example.com/bulk/59', tag: '\ud800' }, 400, 'invalid_body'],
      // The same slug as item 60, later in the batch: the first one wins.
      61: [{ url: 'https://example.com/bulk/61', customSlug: 'bulk-60' }, 409, 'slug_taken'],
      73: [{ url: 'https://example.com/bulk/73', customSlug: 'Bad_Slug' }, 400, 'invalid_slug'],
      88: ['a string, not a link', 400, 'invalid_body'],
    };
    for (const [i, [item]] of Object.entries(poison)) links[Number(i)] = item;

    const res = await bulk({ links });
    expect(res.statusCode).toBe(200);
    const { results } = res.json();
    expect(results).toHaveLength(100);
    for (let i = 0; i < 100; i++) {
      const bad = poison[i];
      if (bad) {
        expect({ i, ...results[i] }).toMatchObject({
          i,
          status: bad[1],
          code: bad[2],
          error: expect.any(String),
        });
        // Every refusal says what is wrong in its detail.
        expect(results[i]).toHaveProperty('detail', expect.any(String));
        continue;
      }
      expect({ i, status: results[i].status }).toEqual({ i, status: 201 });
      const link = results[i].link;
      expect(link.destinationUrl).toBe(`https://example.com/bulk/${i}`);
      expect(link.shortUrl).toBe(`${PUBLIC_BASE_URL}/${link.slug}`);
      if (i % 2 === 0) expect(link).toMatchObject({ slug: `bulk-${i}`, tag: `t${i}` });
      else expect(link).toMatchObject({ slug: expect.stringMatching(/^(?=.*\d)[a-z0-9]{5}$/), tag: null });
      const redirect = await system.app.inject({ method: 'GET', url: `/${link.slug}` });
      expect({ i, status: redirect.statusCode, location: redirect.headers.location }).toEqual({
        i,
        status: 302,
        location: link.destinationUrl,
      });
    }
    expect(results[60].link.destinationUrl).toBe('https://example.com/bulk/60');
    expect(await claimsFor('https://example.com/bulk/')).toBe(100 - Object.keys(poison).length);
  });

  it('refuses a body that is not UTF-8 whole, and creates none of its links', async () => {
    // One link's bytes are Latin-1: read as UTF-8 they would have been stored with U+FFFD in their place.
    const payload = Buffer.concat([
      Buffer.from('{"links":[{"url":"https://example.com/utf8/ok"},{"url":"https://example.com/utf8/caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}]}'),
    ]);
    const res = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links/bulk',
      headers: { 'content-type': 'application/json; charset=iso-8859-1', authorization: `Bearer ${system.proKey}` },
      payload,
    });
    expect([res.statusCode, res.json()]).toMatchObject([400, { error: 'Invalid request body', code: 'invalid_body' }]);
    expect(await claimsFor('https://example.com/utf8/')).toBe(0);
  });

  it('answers each link of one account against the slugs of another', async () => {
    await create({ url: 'https://example.com/other', customSlug: 'bulk-other' }, system.freeKey);
    const res = await bulk({
      links: [{ url: 'https://example.com/mine', customSlug: 'bulk-other' }, { url: 'https://example.com/mine2' }],
    });
    expect(res.json().results.map((r: { status: number }) => r.status)).toEqual([409, 201]);
  });

  it('applies the plan to each link', async () => {
    const res = await bulk({ links: [{ url: 'https://example.com', customSlug: 'fb3' }] }, system.freeKey);
    expect(res.json().results).toEqual([
      {
        status: 403,
        error: 'Custom slugs shorter than 4 characters require the Pro plan',
        code: 'plan_upgrade_required',
        detail: 'customSlug is 3 characters; this plan (free) takes 4 or more.',
        field: 'customSlug',
      },
    ]);
  });

  it.each([
    ['no link', { links: [] }, 400, 'invalid_bulk_size'],
    [
      '101 links',
      { links: Array.from({ length: 101 }, (_, i) => ({ url: `https://example.com/${i}` })) },
      400,
      'invalid_bulk_size',
    ],
    ['no links array, a link’s field instead', { url: 'https://example.com' }, 400, 'unknown_field'],
    ['links that are not an array', { links: 'https://example.com' }, 400, 'invalid_body'],
    ['an array', [{ url: 'https://example.com' }], 400, 'invalid_body'],
    ['broken JSON', '{"links": [', 400, 'invalid_body'],
  ])('refuses %s as a whole with a JSON error', async (_name, body, status, code) => {
    const res = await bulk(body);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ error: expect.any(String), code });
  });

  it('takes bodies up to 1 MiB (100 long URLs), refuses larger ones with 413, and wants a key', async () => {
    const links = Array.from({ length: 100 }, (_, i) => ({ url: `https://example.com/long/${i}/${'a'.repeat(2000)}` }));
    const res = await bulk({ links });
    expect(res.statusCode).toBe(200);
    expect(res.json().results.every((r: { status: number }) => r.status === 201)).toBe(true);
    const huge = await bulk({ links: [{ url: 'https://example.com', tag: 'x'.repeat(1024 * 1024) }] });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ error: 'Request body too large', code: 'body_too_large' });
    expect((await bulk({ links }, 'slk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode).toBe(401);
  });
});

describe('Idempotency-Key', () => {
  it('answers a retry with the first response (status, body, Location) and creates nothing more', async () => {
    const body = { url: 'https://example.com/idem/1', tag: 'retry' };
    const first = await create(body, undefined, { 'idempotency-key': 'idem-1' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order and other white space is the same request.
    const again = await create('{ "tag": "retry",  "url": "https://example.com/idem/1" }', undefined, {
      'idempotency-key': 'idem-1',
    });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await claimsFor('https://example.com/idem/1')).toBe(1);
  });

  it('refuses the same key with another body, or on the other endpoint, with 422', async () => {
    await create({ url: 'https://example.com/idem/2' }, undefined, { 'idempotency-key': 'idem-2' });
    const other = await create({ url: 'https://example.com/idem/2b' }, undefined, { 'idempotency-key': 'idem-2' });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      error: 'This Idempotency-Key was already used with a different request',
      code: 'idempotency_key_reused',
      detail:
        'This key was first sent, within the last 24 hours, with another method, path or body: use a new key for a new request.',
    });
    const onBulk = await bulk({ links: [{ url: 'https://example.com/idem/2' }] }, undefined, {
      'idempotency-key': 'idem-2',
    });
    expect(onBulk.statusCode).toBe(422);
    expect(await claimsFor('https://example.com/idem/2')).toBe(1);
  });

  it('replays an error the service gave on purpose', async () => {
    const headers = { 'idempotency-key': 'idem-3' };
    const first = await create({ url: 'https://example.com', customSlug: 'api' }, undefined, headers);
    const again = await create({ url: 'https://example.com', customSlug: 'api' }, undefined, headers);
    expect([first.statusCode, again.statusCode]).toEqual([400, 400]);
    expect(again.json()).toMatchObject({ error: 'This slug is reserved', code: 'slug_reserved' });
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps keys per account: two accounts may use one key', async () => {
    const headers = { 'idempotency-key': 'shared-key' };
    const a = await create({ url: 'https://example.com/idem/acct-a' }, system.proKey, headers);
    const b = await create({ url: 'https://example.com/idem/acct-b' }, system.freeKey, headers);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().id).not.toBe(b.json().id);
    // And each account's retry gets its own first response.
    expect((await create({ url: 'https://example.com/idem/acct-b' }, system.freeKey, headers)).body).toBe(b.body);
  });

  it('gives 50 concurrent retries of one key exactly one link and the same response', async () => {
    const body = { url: 'https://example.com/idem/race' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => create(body, undefined, { 'idempotency-key': 'race-key' })),
    );
    expect(new Set(responses.map((r) => r.statusCode))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await claimsFor('https://example.com/idem/race')).toBe(1);
  });

  it('replays a bulk create whole', async () => {
    const body = {
      links: [
        { url: 'https://example.com/idem/bulk/1' },
        { url: 'https://example.com/idem/bulk/2', customSlug: 'admin' },
      ],
    };
    const first = await bulk(body, undefined, { 'idempotency-key': 'bulk-key' });
    const again = await bulk(body, undefined, { 'idempotency-key': 'bulk-key' });
    expect(first.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await claimsFor('https://example.com/idem/bulk/')).toBe(1);
  });

  it.each([
    ['empty', '', 'Idempotency-Key is empty.'],
    ['too long', 'k'.repeat(256), 'Idempotency-Key is 256 characters; at most 255 are taken.'],
    ['not ASCII', 'clé', 'Idempotency-Key holds U+00E9 at position 3; only printable ASCII is taken.'],
  ])('refuses a key that is %s with 400, saying why', async (_name, key, detail) => {
    const res = await create({ url: 'https://example.com/idem/bad-key' }, undefined, { 'idempotency-key': key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Idempotency-Key must be 1-255 printable ASCII characters',
      code: 'invalid_idempotency_key',
      detail,
    });
    expect(await claimsFor('https://example.com/idem/bad-key')).toBe(0);
  });

  it('forgets a key after 24 hours, and takes over a key whose request died', async () => {
    const headers = { 'idempotency-key': 'old-key' };
    const body = { url: 'https://example.com/idem/old' };
    const first = await create(body, undefined, headers);
    await system.infra.pool.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE idempotency_key = 'old-key'`,
    );
    const later = await create(body, undefined, headers);
    expect(later.statusCode).toBe(201);
    expect(later.json().id).not.toBe(first.json().id);

    // A request at work for longer than the lease: its process died.
    const account = (
      await system.infra.pool.query(`SELECT account_id FROM idempotency_keys WHERE idempotency_key = 'old-key'`)
    ).rows[0].account_id;
    await system.infra.pool.query(
      `INSERT INTO idempotency_keys (account_id, idempotency_key, request_hash, owner, created_at)
       VALUES ($1, 'dead-key', 'whatever', gen_random_uuid(), now() - interval '2 minutes')`,
      [account],
    );
    const retry = await create({ url: 'https://example.com/idem/dead' }, undefined, { 'idempotency-key': 'dead-key' });
    expect(retry.statusCode).toBe(201);
  });

  it('answers 409 to a retry while the request holding its key is still at work', async () => {
    const issued = await createAccountWithKey(system.infra.pool, { accountName: 'busy', keyName: 'k', plan: 'free' });
    const body = { url: 'https://example.com/idem/busy' };
    // Another process holds the key, at work on this very request, well within its lease.
    await system.infra.pool.query(
      `INSERT INTO idempotency_keys (account_id, idempotency_key, request_hash, owner)
       VALUES ($1, 'busy-key', $2, gen_random_uuid())`,
      [issued.account.id, requestHash('POST', '/api/v1/links', body)],
    );
    const res = await create(body, issued.key, { 'idempotency-key': 'busy-key' });
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().code).toBe('idempotency_key_in_progress');
  }, 30_000);
});

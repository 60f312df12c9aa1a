import { gzipSync } from 'node:zlib';
import { eventually } from '@shortlink/testing';
import { PUBLIC_BASE_URL, startLinkSystem, type LinkSystem } from './support/link-system';

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

function create(body: unknown, key: string | null = system.proKey, headers: Record<string, string> = {}) {
  return system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: {
      'content-type': 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /api/v1/links', () => {
  it('creates a link with a custom slug and returns the Link object', async () => {
    const before = Date.now();
    const res = await create({ url: 'https://example.com/Summer?utm=x&ä=1', customSlug: 'summer-sale', tag: 'email' });
    expect(res.statusCode).toBe(201);
    const link = res.json();
    expect(Object.keys(link).sort()).toEqual([
      'createdAt',
      'destinationUrl',
      'domain',
      'id',
      'rules',
      'shortUrl',
      'slug',
      'tag',
      'updatedAt',
      'variants',
    ]);
    expect(link).toMatchObject({
      slug: 'summer-sale',
      shortUrl: `${PUBLIC_BASE_URL}/summer-sale`,
      destinationUrl: 'https://example.com/Summer?utm=x&ä=1',
      tag: 'email',
    });
    expect(link.id).toMatch(UUID);
    expect(link.createdAt).toMatch(ISO_MS);
    // Not changed yet.
    expect(link.updatedAt).toBe(link.createdAt);
    expect(Date.parse(link.createdAt)).toBeGreaterThanOrEqual(before - 5);
    expect(res.headers.location).toBe(`${PUBLIC_BASE_URL}/summer-sale`);
  });

  it('generates a 5-character slug with a digit when none is given, and returns tag null', async () => {
    const slugs = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await create({ url: `https://example.com/${i}` });
      expect(res.statusCode).toBe(201);
      const link = res.json();
      expect(link.slug).toMatch(/^(?=.*[0-9])[a-z0-9]{5}$/);
      expect(link.tag).toBeNull();
      slugs.add(link.slug);
    }
    expect(slugs.size).toBe(20);
  });

  it.each([
    ['no url', { tag: 'x' }],
    ['an invalid url', { url: 'not a url' }],
    ['a non-http url', { url: 'ftp://example.com' }],
    ['a url that is not a string', { url: ['https://example.com'] }],
    ['a body that is not an object', '"https://example.com"'],
    ['malformed JSON', '{"url": "https://exa'],
    ['an empty body', ''],
  ])('answers 400 Invalid request body for %s', async (_name, body) => {
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid request body', code: 'invalid_body' });
  });

  it('answers 415 for a wrong content type (curl -d), naming the one it takes', async () => {
    const res = await create('url=https://example.com', system.proKey, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({
      code: 'unsupported_media_type',
      detail: expect.stringContaining('expected application/json'),
    });
  });

  it.each(['ab', 'x'.repeat(31), 'Caps', 'under_score', 'dot.ted'])(
    'answers 400 for the custom slug %j with the slug-format text',
    async (customSlug) => {
      const res = await create({ url: 'https://example.com', customSlug });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/^Custom slugs must be 3-30 characters/);
    },
  );

  it.each(['api', 'admin', 'docs', 'healthz', 'metrics'])('answers 400 This slug is reserved for %s', async (slug) => {
    const res = await create({ url: 'https://example.com', customSlug: slug });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'This slug is reserved', code: 'slug_reserved' });
  });

  it('answers 409 This slug is already taken', async () => {
    expect((await create({ url: 'https://example.com/a', customSlug: 'taken-one' })).statusCode).toBe(201);
    const res = await create({ url: 'https://example.com/b', customSlug: 'taken-one' }, system.freeKey);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'This slug is already taken',
      code: 'slug_taken',
      detail: 'Another link has the slug "taken-one": choose another customSlug, or leave it out for a generated one.',
      field: 'customSlug',
    });
  });

  it('gives exactly one 201 to 25 concurrent creates of one slug', async () => {
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => create({ url: `https://example.com/race/${i}`, customSlug: 'the-race' })),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(24);
    const winner = responses.find((r) => r.statusCode === 201)!.json();
    const redirect = await system.app.inject({ method: 'GET', url: '/the-race' });
    expect(redirect.headers.location).toBe(winner.destinationUrl);
    await eventually(async () => {
      const { rows } = await system.infra.pool.query('SELECT destination_url FROM links WHERE slug = $1', ['the-race']);
      return rows.length === 1 ? rows : undefined;
    });
  });

  it('applies the plan: 3-character slugs are for Pro', async () => {
    expect((await create({ url: 'https://example.com', customSlug: 'pr3' }, system.proKey)).statusCode).toBe(201);
    const free = await create({ url: 'https://example.com', customSlug: 'fr3' }, system.freeKey);
    expect(free.statusCode).toBe(403);
    expect(free.json().code).toBe('plan_upgrade_required');
    expect((await create({ url: 'https://example.com', customSlug: 'fre4' }, system.freeKey)).statusCode).toBe(201);
  });

  it('refuses credentials in URLs, links back to the service, long URLs and tags, and large bodies', async () => {
    expect((await create({ url: 'https://a@example.com' })).json().code).toBe('url_credentials');
    expect((await create({ url: `${PUBLIC_BASE_URL}/abc12` })).json().code).toBe('url_self_reference');
    expect((await create({ url: `https://example.com/${'a'.repeat(3000)}` })).json().code).toBe('url_too_long');
    expect((await create({ url: 'https://example.com', tag: 't'.repeat(101) })).json().code).toBe('invalid_tag');
    const big = await create({ url: 'https://example.com', tag: 'x'.repeat(100_000) });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ error: 'Request body too large', code: 'body_too_large' });
  });

  it('refuses a compressed body with 415, single or bulk, and creates nothing of it', async () => {
    const body = { url: 'https://example.com/zipped', customSlug: 'zipped' };
    const refused = [
      await system.app.inject({
        method: 'POST',
        url: '/api/v1/links',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          authorization: `Bearer ${system.proKey}`,
        },
        payload: gzipSync(JSON.stringify(body)),
      }),
      await system.app.inject({
        method: 'POST',
        url: '/api/v1/links/bulk',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'br',
          authorization: `Bearer ${system.proKey}`,
        },
        payload: JSON.stringify({ links: [body] }),
      }),
    ];
    for (const res of refused) {
      expect([res.statusCode, res.headers['accept-encoding'], res.json()]).toEqual([
        415,
        'identity',
        {
          error: 'Unsupported Content-Encoding: send the body uncompressed',
          code: 'unsupported_content_encoding',
          detail: expect.stringMatching(
            /^Content-Encoding is ".+"; send the body uncompressed, with no Content-Encoding\.$/,
          ),
        },
      ]);
    }
    // Sent as it is, the same link is created: neither refusal took its slug.
    expect((await create(body)).statusCode).toBe(201);
  });

  it.each([
    ['no Authorization header', null, undefined],
    ['an unknown key', 'slk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', undefined],
    ['a malformed key', 'hunter2', undefined],
    ['another scheme', null, 'Basic dXNlcjpwYXNz'],
  ])('answers 401 for %s', async (_name, key, authorization) => {
    const res = await create({ url: 'https://example.com' }, key, authorization === undefined ? {} : { authorization });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ error: 'Unauthorized', code: 'unauthorized' });
  });

  it('checks the key before the body', async () => {
    const res = await create('{broken', null);
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /:slug', () => {
  it('redirects with 302 and headers that keep every click countable', async () => {
    await create({ url: 'https://example.com/landing?a=1', customSlug: 'go-here' });
    const res = await system.app.inject({ method: 'GET', url: '/go-here' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/landing?a=1');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex');

    const head = await system.app.inject({ method: 'HEAD', url: '/go-here' });
    expect(head.statusCode).toBe(302);
    expect(head.headers.location).toBe('https://example.com/landing?a=1');
    expect(head.headers['cache-control']).toBe('private, no-store');
    expect(head.body).toBe('');
  });

  it('sends a Location header that is valid even for a destination with non-ASCII characters', async () => {
    await create({ url: 'https://example.com/straße?q=ü', customSlug: 'unicode-dest' });
    const res = await system.app.inject({ method: 'GET', url: '/unicode-dest' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/stra%C3%9Fe?q=%C3%BC');
  });

  it('answers 404 with a small JSON body for an unknown slug and for paths that cannot be slugs', async () => {
    for (const url of ['/no-such-link', '/NOPE', '/x', '/api']) {
      const res = await system.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: 'Link not found',
        code: 'not_found',
        detail: 'No link has this slug, or it was deleted.',
      });
    }
  });

  it('redirects on the next request after the 201, even when the slug was looked up before', async () => {
    for (let i = 0; i < 10; i++) {
      const slug = `ryw-${i}`;
      expect((await system.app.inject({ method: 'GET', url: `/${slug}` })).statusCode).toBe(404);
      expect((await create({ url: `https://example.com/ryw/${i}`, customSlug: slug })).statusCode).toBe(201);
      const res = await system.app.inject({ method: 'GET', url: `/${slug}` });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`https://example.com/ryw/${i}`);
    }
  });
});

import { createAccountWithKey } from '@shortlink/accounts';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/** GET /api/v1/links over real HTTP, on the whole system as `npm start` composes it, on real Kafka and Postgres. */
let system: LinkSystem;
let base: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  system = await startLinkSystem();
  base = await system.app.listen({ host: '127.0.0.1', port: 0 });
  const key = async (name: string) =>
    (await createAccountWithKey(system.infra.pool, { accountName: name, keyName: 'test', plan: 'pro' })).key;
  [alice, bob] = [await key('alice'), await key('bob')];
}, 60_000);

afterAll(async () => {
  await system?.close();
});

interface Link {
  id: string;
  slug: string;
  shortUrl: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: string;
}

async function create(key: string, body: Record<string, unknown>): Promise<Link> {
  const res = await fetch(`${base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Link;
}

async function list(key: string | null, query: string) {
  const res = await fetch(`${base}/api/v1/links${query}`, {
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked by the assertions
  return { status: res.status, body: (await res.json()) as any };
}

/** Every page of a listing, following nextCursor; `between` runs after each page. */
async function listAll(key: string, params: Record<string, string>, between?: () => Promise<void>): Promise<Link[]> {
  const links: Link[] = [];
  let cursor: string | null = null;
  do {
    const query: string = new URLSearchParams({ ...params, ...(cursor === null ? {} : { cursor }) }).toString();
    const { status, body } = await list(key, `?${query}`);
    expect(status).toBe(200);
    links.push(...(body.links as Link[]));
    cursor = body.nextCursor;
    await between?.();
    // A cursor that led back would page forever: fail instead.
    if (links.length > 10_000) throw new Error('paging does not end');
  } while (cursor !== null);
  return links;
}

const slugs = (links: Link[]) => links.map((l) => l.slug);

describe('GET /api/v1/links', () => {
  let aliceLinks: Link[];
  let bobLinks: Link[];

  beforeAll(async () => {
    // Two accounts creating at once, each link listed the moment its 201 arrived.
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 === 0
          ? create(alice, {
              url: `https://alice.example/Page/${i}`,
              customSlug: `alice-${i}`,
              tag: i % 4 ? 'odd' : 'even',
            })
          : create(bob, { url: `https://bob.example/${i}`, customSlug: `bob-${i}`, tag: 'even' }),
      ),
    );
    aliceLinks = made.filter((l) => l.slug.startsWith('alice-'));
    bobLinks = made.filter((l) => l.slug.startsWith('bob-'));
  });

  it('lists each account its own links only, each exactly as its creation answered it', async () => {
    const a = await listAll(alice, { limit: '4' });
    const b = await listAll(bob, {});
    expect(new Set(slugs(a))).toEqual(new Set(slugs(aliceLinks)));
    expect(new Set(slugs(b))).toEqual(new Set(slugs(bobLinks)));
    expect(a).toHaveLength(aliceLinks.length);
    for (const link of a) expect(link).toEqual(aliceLinks.find((l) => l.id === link.id));
  });

  it('lists newest first, and a link as soon as its 201 was sent', async () => {
    const first = await create(alice, { url: 'https://alice.example/first', customSlug: 'alice-order-1' });
    expect((await list(alice, '?limit=1')).body.links).toEqual([first]);
    const second = await create(alice, { url: 'https://alice.example/second', customSlug: 'alice-order-2' });
    const { body } = await list(alice, '?limit=2');
    expect(body.links).toEqual([second, first]);
    expect(body.nextCursor).toEqual(expect.any(String));
  });

  it('pages with the default of 20 and a null nextCursor on the last page', async () => {
    const { body } = await list(bob, '');
    expect(body.links).toHaveLength(15);
    expect(body.nextCursor).toBeNull();
    const page = await list(alice, '');
    expect(page.body.links).toHaveLength(17);
    expect(page.body.nextCursor).toBeNull();
    const cut = await list(alice, '?limit=17');
    expect(cut.body.nextCursor).toBeNull();
    const more = await list(alice, '?limit=16');
    expect(more.body.nextCursor).toEqual(expect.any(String));
    expect((await list(alice, `?limit=16&cursor=${more.body.nextCursor}`)).body).toEqual({
      links: [page.body.links[16]],
      nextCursor: null,
    });
  });

  it('skips and repeats nothing while 200 links are created during the paging', async () => {
    const carol = (await createAccountWithKey(system.infra.pool, { accountName: 'carol', keyName: 't', plan: 'pro' }))
      .key;
    const existing = await Promise.all(
      Array.from({ length: 120 }, (_, i) => create(carol, { url: `https://carol.example/${i}` })),
    );
    const during: Promise<Link>[] = [];
    // Creates start before the first page and keep starting between pages, so they commit while paging goes on.
    const start = (n: number) => {
      for (let i = 0; i < n; i++) during.push(create(carol, { url: `https://carol.example/new/${during.length}` }));
    };
    start(40);
    const paged = await listAll(carol, { limit: '7' }, async () => start(during.length < 200 ? 10 : 0));
    start(200 - during.length);
    const created = await Promise.all(during);
    expect(created).toHaveLength(200);

    expect(new Set(paged.map((l) => l.id)).size).toBe(paged.length);
    const seen = new Set(paged.map((l) => l.id));
    expect(existing.filter((l) => !seen.has(l.id))).toEqual([]);
    // The existing links came in the order of their creation, newest first.
    const existingIds = new Set(existing.map((l) => l.id));
    const existingOrder = paged.filter((l) => existingIds.has(l.id));
    expect(await listAll(carol, { limit: '100' })).toHaveLength(320);
    const settled = (await listAll(carol, { limit: '100' })).filter((l) => existingIds.has(l.id));
    expect(existingOrder.map((l) => l.id)).toEqual(settled.map((l) => l.id));
  });

  it('filters by exact tag, and pages within the filter', async () => {
    const even = await listAll(alice, { tag: 'even', limit: '2' });
    expect(slugs(even).sort()).toEqual(
      slugs(aliceLinks.filter((l) => l.tag === 'even'))
        .slice()
        .sort(),
    );
    expect((await list(alice, '?tag=EVEN')).body.links).toEqual([]);
    expect((await list(alice, '?tag=eve')).body.links).toEqual([]);
  });

  it('searches slug and destination, case-insensitively, with % and _ taken literally', async () => {
    await create(alice, { url: 'https://shop.example/Sale_100%25?utm_source=News', customSlug: 'alice-spring' });
    await create(bob, { url: 'https://shop.example/sale', customSlug: 'bob-spring' });
    // Search reads the projection (migration 0009): a new link is found once projected.
    const bySlug = await eventually(async () => {
      const found = await listAll(alice, { search: 'SPRING' });
      return found.length > 0 ? found : undefined;
    });
    expect(slugs(bySlug)).toEqual(['alice-spring']);
    expect(slugs(await listAll(alice, { search: 'utm_source=news' }))).toEqual(['alice-spring']);
    expect(slugs(await listAll(alice, { search: 'page/1' })).sort()).toEqual([
      'alice-10',
      'alice-12',
      'alice-14',
      'alice-16',
      'alice-18',
    ]);
    expect(slugs(await listAll(alice, { search: '100%' }))).toEqual(['alice-spring']);
    expect(slugs(await listAll(alice, { search: 'ce_1' }))).toEqual([]);
    expect(slugs(await listAll(alice, { search: 'alice-1', tag: 'odd', limit: '1' })).sort()).toEqual([
      'alice-10',
      'alice-14',
      'alice-18',
    ]);
    expect(await listAll(alice, { search: '%' })).toEqual(await listAll(alice, { search: 'spring' }));
  });

  it('refuses bad parameters with a JSON 400 naming the parameter', async () => {
    const other = (await list(bob, '?limit=1')).body.nextCursor as string;
    const own = (await list(alice, '?limit=1')).body.nextCursor as string;
    const cases: [string, string][] = [
      ['?limit=0', 'invalid_limit'],
      ['?limit=101', 'invalid_limit'],
      ['?limit=abc', 'invalid_limit'],
      ['?limit=5&limit=6', 'invalid_limit'],
      ['?limit=', 'invalid_limit'],
      ['?cursor=not-a-cursor', 'invalid_cursor'],
      ['?cursor=', 'invalid_cursor'],
      [`?cursor=${own}x`, 'invalid_cursor'],
      [`?cursor=${own}&cursor=${own}`, 'invalid_cursor'],
      // Bob's cursor is no position in Alice's list, and says nothing about Bob's links.
      [`?cursor=${other}`, 'invalid_cursor'],
      [`?cursor=${'%00'.repeat(23)}`, 'invalid_cursor'],
      ['?tag=', 'invalid_tag'],
      ['?tag=a%00b', 'invalid_tag'],
      [`?tag=${'x'.repeat(101)}`, 'invalid_tag'],
      ['?search=%00', 'invalid_search'],
      ['?search=a%0D%0Ab', 'invalid_search'],
      [`?search=${'%25'.repeat(201)}`, 'invalid_search'],
    ];
    for (const [query, code] of cases) {
      const { status, body } = await list(alice, query);
      expect({ query, status, code: body.code }).toEqual({ query, status: 400, code });
      expect(body.error).toEqual(expect.any(String));
    }
    // Percent-encoding that is no UTF-8 is searched for as the query parser hands it over, never a 5xx.
    expect((await list(alice, '?search=%ED%A0%80&tag=%FF')).status).toBe(200);
    expect((await list(null, '')).status).toBe(401);
    expect((await list('sk_not_a_key', '')).status).toBe(401);
  });
});

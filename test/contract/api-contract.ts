import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@shortlink/testing';
import { loadConformance, type Conformance } from './openapi-conformance';

/**
 * The API contract (../shared/spec/short-link-api.md), over real HTTP against
 * a running `npm start` process. The same suite runs against every deployment
 * mode: what a user sees must not depend on where the events are kept.
 */
export interface ContractTarget {
  /** Base URL of the running process. */
  url: string;
  /** A new API key on the given plan, issued as a user would (`npm run apikey`). */
  issueKey(plan: 'free' | 'pro'): Promise<string>;
}

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
const json = (res: Response): Promise<any> => res.json();

export function describeApiContract(mode: string, target: () => ContractTarget): void {
  describe(`API contract (${mode})`, () => {
    let pro: string;
    let free: string;
    let page: { origin: string; paths: string[]; close(): Promise<void> };
    const run = Math.random().toString(36).slice(2, 7);

    let conformance: Conformance;

    beforeAll(async () => {
      conformance = await loadConformance(target().url);
      pro = await target().issueKey('pro');
      free = await target().issueKey('free');
      page = await startPage();
    });

    afterAll(async () => {
      await page?.close();
    });

    // Every response of every case is checked against the API document (GET /openapi.json).
    afterEach(() => expect(conformance.takeViolations()).toEqual([]));

    /** The suite's one way to send a request: the answer is checked against the API document. */
    const call = async (path: string, init: RequestInit = {}): Promise<Response> =>
      conformance.check(init.method ?? 'GET', path, await fetch(`${target().url}${path}`, init));

    const post = (body: unknown, key: string | null = pro) =>
      call('/api/v1/links', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify(body),
      });
    const send = (method: 'PATCH' | 'DELETE', slug: string, body?: unknown, key: string = pro) =>
      call(`/api/v1/links/${slug}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const get = (path: string, key: string | null = pro, headers: Record<string, string> = {}) =>
      call(path, {
        redirect: 'manual',
        headers: { ...headers, ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
      });

    it('creates a link with a custom slug and a tag (201, the Link object)', async () => {
      const res = await post({ url: 'https://example.com/landing?utm=x', customSlug: `c-${run}`, tag: 'launch' });
      expect(res.status).toBe(201);
      const link = await json(res);
      expect(link).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        slug: `c-${run}`,
        shortUrl: expect.stringMatching(new RegExp(`/c-${run}$`)),
        destinationUrl: 'https://example.com/landing?utm=x',
        tag: 'launch',
        createdAt: expect.stringMatching(ISO_MILLIS),
        updatedAt: link.createdAt,
        rules: [],
        variants: null,
        domain: null,
      });
    });

    it('serves its API document and the reference page, the page’s files from this process only', async () => {
      expect(await json(await call('/healthz'))).toEqual({ status: 'ok', service: 'shortlink' });
      const document = await json(await fetch(`${target().url}/openapi.json`));
      expect(document.openapi).toBe('3.1.0');
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/links', '/{slug}', '/healthz']));
      // Not API operations, so not in the document: fetched as they are.
      const docs = await fetch(`${target().url}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
      const assets = [...(await docs.text()).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(3);
      for (const asset of assets) {
        expect(asset).not.toMatch(/^(?:[a-z]+:)?\/\//i);
        const res = await fetch(new URL(asset, `${target().url}/docs/`));
        expect([asset, res.status]).toEqual([asset, 200]);
        await res.arrayBuffer();
      }
    });

    it('generates a 5-character slug with a digit when none is given', async () => {
      const res = await post({ url: 'https://example.com/generated' });
      expect(res.status).toBe(201);
      const { slug, tag } = await json(res);
      expect(slug).toMatch(/^(?=.*\d)[a-z0-9]{5}$/);
      expect(tag).toBeNull();
    });

    it('answers the errors of spec section 7 with their texts', async () => {
      const bad = await post({ url: 'not a url' });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error).toBe('Invalid request body');
      const format = await post({ url: 'https://example.com', customSlug: 'Bad_Slug' });
      expect(format.status).toBe(400);
      expect((await json(format)).error).toMatch(/^Custom slugs must be 3-30 characters/);
      const reserved = await post({ url: 'https://example.com', customSlug: 'admin' });
      expect(reserved.status).toBe(400);
      expect((await json(reserved)).error).toBe('This slug is reserved');
      await post({ url: 'https://example.com/1', customSlug: `taken-${run}` });
      const taken = await post({ url: 'https://example.com/2', customSlug: `taken-${run}` });
      expect(taken.status).toBe(409);
      expect((await json(taken)).error).toBe('This slug is already taken');
      const anonymous = await post({ url: 'https://example.com' }, null);
      expect(anonymous.status).toBe(401);
    });

    it('redirects a short URL to its destination, and 404s an unknown slug', async () => {
      await post({ url: 'https://example.com/go', customSlug: `r-${run}` });
      const res = await get(`/r-${run}`, null);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/go');
      const head = await call(`/r-${run}`, { method: 'HEAD', redirect: 'manual' });
      expect([head.status, head.headers.get('location')]).toEqual([302, 'https://example.com/go']);
      expect((await get(`/nope-${run}`, null)).status).toBe(404);
    });

    it('counts human clicks, not bots, in the analytics', async () => {
      const slug = `a-${run}`;
      await post({ url: 'https://example.com/analytics', customSlug: slug });
      const visit = (ua: string, ip: string, referer?: string) =>
        get(`/${slug}`, null, { 'user-agent': ua, 'x-forwarded-for': ip, ...(referer ? { referer } : {}) });
      expect((await visit(CHROME, '81.2.69.142', 'https://news.ycombinator.com/item?id=1')).status).toBe(302);
      await visit(CHROME, '81.2.69.142');
      await visit(IPHONE, '8.8.8.8');
      await visit('Googlebot/2.1 (+http://www.google.com/bot.html)', '66.249.66.1');

      const analytics = await eventually(async () => {
        const res = await get(`/api/v1/links/${slug}/analytics?range=7d`);
        const body = await json(res);
        return body.totalClicks === 3 ? body : undefined;
      });
      expect(analytics).toMatchObject({ slug, range: '7d', totalClicks: 3 });
      expect(analytics.clicksOverTime).toHaveLength(7);
      expect(analytics.clicksOverTime.at(-1).clicks).toBe(3);
      expect(analytics.referrers).toEqual(
        expect.arrayContaining([
          { name: 'Direct', count: 2 },
          { name: 'https://news.ycombinator.com', count: 1 },
        ]),
      );
      expect(analytics.devices).toEqual(
        expect.arrayContaining([
          { name: 'desktop', count: 2 },
          { name: 'mobile', count: 1 },
        ]),
      );
      expect(analytics.browsers.map((b: { name: string }) => b.name).sort()).toEqual(['Chrome', 'Safari']);
      // With TRUST_PROXY off, the socket address counts, not X-Forwarded-For: one visitor (127.0.0.1), country unknown.
      expect(analytics.uniqueVisitors).toBe(1);
      expect(analytics.countries).toEqual([{ name: 'XX', count: 3 }]);
    });

    it('keeps the free plan to its ranges and the analytics to the owner', async () => {
      const slug = `f-${run}`;
      expect((await post({ url: 'https://example.com/free', customSlug: slug }, free)).status).toBe(201);
      expect((await get(`/api/v1/links/${slug}/analytics?range=30d`, free)).status).toBe(200);
      expect((await get(`/api/v1/links/${slug}/analytics?range=90d`, free)).status).toBe(403);
      expect((await get(`/api/v1/links/${slug}/analytics`, pro)).status).toBe(404);
      expect((await get(`/api/v1/links/${slug}/analytics?range=1y`, free)).status).toBe(400);
    });

    it('answers the account’s analytics of the key’s account only, and refuses a grouping it does not know', async () => {
      const [owner, other] = [await target().issueKey('pro'), await target().issueKey('pro')];
      expect(
        (await post({ url: 'https://example.com/acct', customSlug: `acct-${run}`, tag: 'news' }, owner)).status,
      ).toBe(201);
      const body = await json(await get('/api/v1/analytics?range=30d&groupBy=tag&limit=5', owner));
      expect(body).toMatchObject({ range: '30d', groupBy: 'tag', totalClicks: 0, uniqueVisitors: 0, rows: [] });
      expect(await json(await get('/api/v1/analytics', other))).toMatchObject({
        range: '7d',
        groupBy: 'link',
        rows: [],
      });
      const bad = await get('/api/v1/analytics?groupBy=campaign', owner);
      expect([bad.status, (await json(bad)).code]).toEqual([400, 'invalid_group_by']);
      expect((await get('/api/v1/analytics?limit=0', owner)).status).toBe(400);
      expect((await get('/api/v1/analytics?range=all', free)).status).toBe(403);
      expect((await get('/api/v1/analytics', null)).status).toBe(401);
    });

    it('tells a key its account, plan and the analytics ranges the plan reads', async () => {
      const [proAccount, freeAccount] = [
        await json(await get('/api/v1/account')),
        await json(await get('/api/v1/account', free)),
      ];
      expect(proAccount).toMatchObject({ plan: 'pro', analyticsRanges: ['7d', '30d', '90d', 'all'] });
      expect(freeAccount).toMatchObject({ plan: 'free', analyticsRanges: ['7d', '30d'] });
      expect(freeAccount.accountId).not.toBe(proAccount.accountId);
      expect((await get('/api/v1/account', null)).status).toBe(401);
    });

    it('lists the caller’s links newest first, a page at a time, filtered by tag or search', async () => {
      const [owner, other] = [await target().issueKey('pro'), await target().issueKey('pro')];
      const made = [];
      for (const [i, tag] of ['news', 'ads', 'news', null, 'news'].entries()) {
        const res = await post({ url: `https://example.com/List/${i}`, customSlug: `l${i}-${run}`, tag }, owner);
        expect(res.status).toBe(201);
        made.push(await json(res));
      }
      expect((await post({ url: 'https://example.com/List/other', customSlug: `lo-${run}` }, other)).status).toBe(201);

      const pages = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/api/v1/links?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`, owner);
        expect(res.status).toBe(200);
        const body = await json(res);
        pages.push(body.links);
        cursor = body.nextCursor;
      } while (cursor !== null);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual([...made].reverse());

      const tagged = await json(await get('/api/v1/links?tag=news', owner));
      expect(tagged).toEqual({ links: [made[4], made[2], made[0]], nextCursor: null });
      // Search reads the projection: a new link is found once projected (docs/integrators.md).
      const found = await eventually(async () => {
        const body = await json(await get(`/api/v1/links?search=LIST/1`, owner));
        return body.links.length > 0 ? body : undefined;
      });
      expect(found.links).toEqual([made[1]]);
      const theirs = await json(await get('/api/v1/links', other));
      expect(theirs.links.map((l: { slug: string }) => l.slug)).toEqual([`lo-${run}`]);

      const mine = (await json(await get('/api/v1/links?limit=1', owner))).nextCursor;
      for (const [query, code] of [
        [`?cursor=${mine}`, 'invalid_cursor'],
        ['?cursor=garbage', 'invalid_cursor'],
        ['?limit=0', 'invalid_limit'],
        ['?search=%00', 'invalid_search'],
      ]) {
        const res = await get(`/api/v1/links${query}`, other);
        expect([query, res.status, (await json(res)).code]).toEqual([query, 400, code]);
      }
      expect((await get('/api/v1/links', null)).status).toBe(401);
    });

    it('passes the short URL’s query on to the destination, the short URL’s value winning a clash', async () => {
      const slug = `q-${run}`;
      expect((await post({ url: 'https://example.com/q?ref=site&keep=1#top', customSlug: slug })).status).toBe(201);
      const merged = await get(`/${slug}?ref=news&utm_source=mail`, null);
      expect(merged.status).toBe(302);
      expect(merged.headers.get('location')).toBe('https://example.com/q?keep=1&ref=news&utm_source=mail#top');
      expect((await get(`/${slug}`, null)).headers.get('location')).toBe('https://example.com/q?ref=site&keep=1#top');
      const hostile = await get(`/${slug}?a=%0D%0ASet-Cookie:x&%00=%ZZ`, null);
      expect(hostile.status).toBe(302);
      expect(hostile.headers.get('location')).toBe(
        'https://example.com/q?ref=site&keep=1&a=%0D%0ASet-Cookie:x&%00=%ZZ#top',
      );
      expect(hostile.headers.get('set-cookie')).toBeNull();
    });

    it('updates a link: the next redirect goes to the new destination, and the Link carries updatedAt', async () => {
      const slug = `u-${run}`;
      const created = await json(await post({ url: 'https://example.com/before', customSlug: slug, tag: 'a' }));
      expect((await get(`/${slug}`, null)).headers.get('location')).toBe('https://example.com/before');
      const res = await send('PATCH', slug, { url: 'https://example.com/after' });
      expect(res.status).toBe(200);
      const updated = await json(res);
      expect(updated).toEqual({
        ...created,
        destinationUrl: 'https://example.com/after',
        updatedAt: expect.any(String),
      });
      expect(updated.updatedAt).toMatch(ISO_MILLIS);
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
      const redirect = await get(`/${slug}`, null);
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe('https://example.com/after');
      expect(await json(await get(`/api/v1/links/${slug}`))).toMatchObject({
        destinationUrl: 'https://example.com/after',
        tag: 'a',
        updatedAt: updated.updatedAt,
      });
      const retagged = await json(await send('PATCH', slug, { tag: null }));
      expect(retagged).toMatchObject({ destinationUrl: 'https://example.com/after', tag: null });
    });

    it('refuses a bad change with creation’s texts, and an empty or unknown one, changing nothing', async () => {
      const slug = `v-${run}`;
      await post({ url: 'https://example.com/keep', customSlug: slug });
      const cases: [unknown, number, string][] = [
        [{ url: 'not a url' }, 400, 'Invalid request body'],
        [{ url: null }, 400, 'Invalid request body'],
        [{ tag: '' }, 400, 'Tags must be 1-100 characters without control characters'],
        [{ url: `https://example.com/${'a'.repeat(2048)}` }, 400, 'URLs must be at most 2048 characters'],
        [{}, 400, 'Nothing to change: give url, tag or both'],
        [{ customSlug: 'other' }, 400, 'Only url, tag, rules and variants can be changed'],
        [[1], 400, 'Invalid request body'],
      ];
      for (const [body, status, error] of cases) {
        const res = await send('PATCH', slug, body);
        expect(res.status).toBe(status);
        expect(await json(res)).toMatchObject({ error, code: expect.any(String), detail: expect.any(String) });
      }
      expect((await get(`/${slug}`, null)).headers.get('location')).toBe('https://example.com/keep');
      expect((await send('PATCH', slug, { url: 'https://example.com/x' }, 'slk_not-a-key')).status).toBe(401);
    });

    it('answers another account 404 for update and delete, exactly like a missing link', async () => {
      const slug = `o-${run}`;
      await post({ url: 'https://example.com/owned', customSlug: slug }, free);
      const other = await send('PATCH', slug, { url: 'https://example.com/hijack' });
      const missing = await send('PATCH', `m-${run}`, { url: 'https://example.com/hijack' });
      expect(other.status).toBe(404);
      // The same body, but for the slug asked for, which the detail names.
      const otherBody = JSON.stringify(await json(other)).replace(slug, '{slug}');
      expect(otherBody).toBe(JSON.stringify(await json(missing)).replace(`m-${run}`, '{slug}'));
      expect((await send('DELETE', slug)).status).toBe(404);
      expect((await get(`/${slug}`, null)).headers.get('location')).toBe('https://example.com/owned');
    });

    it('answers a deletion sent with a body it refuses as its document says, and deletes nothing', async () => {
      const slug = `db-${run}`;
      await post({ url: 'https://example.com/kept', customSlug: slug });
      const del = (headers: Record<string, string>, body: string) =>
        call(`/api/v1/links/${slug}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${pro}`, 'content-type': 'application/json', ...headers },
          body,
        });
      expect((await del({}, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }))).status).toBe(413);
      expect((await del({ 'content-encoding': 'gzip' }, '{}')).status).toBe(415);
      expect((await del({}, '{')).status).toBe(400);
      expect((await get(`/${slug}`, null)).headers.get('location')).toBe('https://example.com/kept');
    });

    it('deletes a link: 204, then redirect, GET, analytics, update and delete answer 404, and the slug is never given out again', async () => {
      const slug = `d-${run}`;
      await post({ url: 'https://example.com/gone', customSlug: slug });
      expect((await get(`/${slug}`, null)).status).toBe(302);
      const res = await send('DELETE', slug);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      // The redirector's 404 is prebuilt; the API's names the slug asked for.
      const notFound = { error: 'Link not found', code: 'not_found', detail: expect.any(String) };
      expect(await json(await get(`/${slug}`, null))).toEqual(notFound);
      expect(await json(await get(`/api/v1/links/${slug}`))).toEqual(notFound);
      expect(await json(await get(`/api/v1/links/${slug}/analytics`))).toEqual(notFound);
      expect(await json(await send('PATCH', slug, { tag: 'x' }))).toEqual(notFound);
      expect((await send('DELETE', slug)).status).toBe(404);
      for (const key of [pro, free]) {
        const again = await post({ url: 'https://example.com/hijack', customSlug: slug }, key);
        expect(again.status).toBe(409);
        expect((await json(again)).error).toBe('This slug is already taken');
      }
      expect((await get(`/${slug}`, null)).status).toBe(404);
    });

    it('fetches the preview again for a new destination', async () => {
      const slug = `pa-${run}`;
      expect((await post({ url: `${page.origin}/first`, customSlug: slug })).status).toBe(201);
      await eventually(async () => {
        const body = await json(await get(`/api/v1/links/${slug}`));
        return body.preview.status === 'ready' ? body : undefined;
      });
      expect((await send('PATCH', slug, { url: `${page.origin}/second` })).status).toBe(200);
      const link = await eventually(async () => {
        const body = await json(await get(`/api/v1/links/${slug}`));
        return body.preview.status === 'ready' && body.destinationUrl.endsWith('/second') ? body : undefined;
      });
      expect(link).toMatchObject({ destinationUrl: `${page.origin}/second`, preview: { title: 'A page & its title' } });
      expect(page.paths).toEqual(expect.arrayContaining(['/first', '/second']));
    });

    it('fetches the preview in the background', async () => {
      const slug = `p-${run}`;
      const created = await post({ url: `${page.origin}/article`, customSlug: slug });
      expect(created.status).toBe(201);
      const link = await eventually(async () => {
        const body = await json(await get(`/api/v1/links/${slug}`));
        return body.preview.status === 'pending' ? undefined : body;
      });
      expect(link.preview).toEqual({
        status: 'ready',
        title: 'A page & its title',
        description: 'Described',
        image: `${page.origin}/img.png`,
        fetchedAt: expect.stringMatching(ISO_MILLIS),
      });
    });

    // After the preview test: the links created here queue in the preview worker ahead of its page.
    const postWith = (path: string, body: unknown, headers: Record<string, string>, key: string = pro) =>
      call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('creates links in bulk, each with its own result in request order', async () => {
      await post({ url: 'https://example.com/b/taken', customSlug: `bt-${run}` });
      const links: unknown[] = Array.from({ length: 100 }, (_, i) => ({
        url: `https://example.com/b/${run}/${i}`,
        ...(i % 4 === 0 ? { customSlug: `b-${run}-${i}` } : {}),
      }));
      links[10] = { url: 'https://example.com/b', customSlug: 'admin' };
      links[20] = { url: 'https://example.com/b', customSlug: `bt-${run}` };
      links[30] = { url: 'not a url' };
      links[40] = { url: 'https://example.com/b/\u0000' };
      links[50] = { url: 'https://example.com/b', customSlug: `b-${run}-0` };
      const res = await postWith('/api/v1/links/bulk', { links }, {});
      expect(res.status).toBe(200);
      const { results } = await json(res);
      const codes = results.map((r: { status: number; code?: string }) => r.code ?? r.status);
      expect(codes.filter((c: unknown) => c !== 201)).toEqual([
        'slug_reserved',
        'slug_taken',
        'invalid_body',
        'invalid_body',
        'slug_taken',
      ]);
      expect([codes[10], codes[20], codes[30], codes[40], codes[50]]).toEqual([
        'slug_reserved',
        'slug_taken',
        'invalid_body',
        'invalid_body',
        'slug_taken',
      ]);
      for (const i of [0, 1, 99]) {
        const { link } = results[i];
        expect(link.destinationUrl).toBe(`https://example.com/b/${run}/${i}`);
        const redirect = await get(`/${link.slug}`, null);
        expect(redirect.status).toBe(302);
        expect(redirect.headers.get('location')).toBe(link.destinationUrl);
      }
      const empty = await postWith('/api/v1/links/bulk', { links: [] }, {});
      expect(empty.status).toBe(400);
      expect(await json(empty)).toMatchObject({
        error: 'Bulk requests must hold 1-100 links',
        code: 'invalid_bulk_size',
      });
    });

    it('answers a retry with the same Idempotency-Key with the first response, once, and refuses another body', async () => {
      const headers = { 'idempotency-key': `contract-${run}` };
      const body = { url: `https://example.com/idem/${run}` };
      const responses = await Promise.all(Array.from({ length: 10 }, () => postWith('/api/v1/links', body, headers)));
      const answers = await Promise.all(responses.map(async (r) => `${r.status} ${await r.text()}`));
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toMatch(/^201 /);
      const other = await postWith('/api/v1/links', { url: `https://example.com/idem/${run}/other` }, headers);
      expect(other.status).toBe(422);
      expect((await json(other)).code).toBe('idempotency_key_reused');
      // Keys are per account: the free account's own request under the same key.
      const theirs = await postWith('/api/v1/links', body, headers, free);
      expect(theirs.status).toBe(201);
      expect((await json(theirs)).id).not.toBe(JSON.parse(answers[0]!.slice(4)).id);
      const bulkFirst = await postWith('/api/v1/links/bulk', { links: [body] }, { 'idempotency-key': `cb-${run}` });
      const bulkAgain = await postWith('/api/v1/links/bulk', { links: [body] }, { 'idempotency-key': `cb-${run}` });
      expect(bulkAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(await bulkAgain.text()).toBe(await bulkFirst.text());
    });

    it('manages webhooks: the secret shown once, another account’s a 404, every answer as documented', async () => {
      const hook = (method: string, path: string, body?: unknown, key: string = pro) =>
        call(`/api/v1/webhooks${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const created = await hook('POST', '', { url: `https://hooks.example.com/${run}`, events: ['link.created'] });
      expect(created.status).toBe(201);
      const { id, secret } = await json(created);
      expect(secret).toMatch(/^whsec_/);
      const read = await hook('GET', `/${id}`);
      expect(read.status).toBe(200);
      expect(await read.text()).not.toContain(secret);
      expect((await hook('GET', '?limit=1')).status).toBe(200);
      const refused = await hook('POST', '', { url: 'https://169.254.169.254/', events: ['link.created'] });
      expect([refused.status, (await json(refused)).code]).toEqual([400, 'webhook_url_private']);
      const theirs = await hook('GET', `/${id}`, undefined, free);
      const unknown = '00000000-0000-4000-8000-000000000000';
      const nobody = await hook('GET', `/${unknown}`, undefined, free);
      // The same body, but for the id asked for, which the detail names.
      expect([theirs.status, (await theirs.text()).replace(id, '{id}')]).toEqual([
        404,
        (await nobody.text()).replace(unknown, '{id}'),
      ]);
      expect((await hook('POST', `/${id}/rotate-secret`)).status).toBe(200);
      expect((await hook('POST', `/${id}/test`)).status).toBe(202);
      expect((await hook('GET', `/${id}/deliveries`)).status).toBe(200);
      expect((await hook('POST', `/${id}/replay`, { since: '2026-01-01T00:00:00Z' })).status).toBe(202);
      expect((await hook('PATCH', `/${id}`, { enabled: false })).status).toBe(200);
      expect((await hook('POST', `/${id}/test`)).status).toBe(409);
      expect((await hook('DELETE', `/${id}`)).status).toBe(204);
      expect((await hook('DELETE', `/${id}`)).status).toBe(404);
    });
  });
}

/** A destination page for the preview worker, on loopback (the process under test allows private networks). */
async function startPage(): Promise<{ origin: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<html><head><meta property="og:title" content="A page &amp; its title">' +
          '<meta name="description" content="Described"><meta property="og:image" content="/img.png"></head></html>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@shortlink/testing';

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
    let page: { origin: string; close(): Promise<void> };
    const run = Math.random().toString(36).slice(2, 7);

    beforeAll(async () => {
      pro = await target().issueKey('pro');
      free = await target().issueKey('free');
      page = await startPage();
    });

    afterAll(async () => {
      await page?.close();
    });

    const post = (body: unknown, key: string | null = pro) =>
      fetch(`${target().url}/api/v1/links`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify(body),
      });
    const get = (path: string, key: string | null = pro, headers: Record<string, string> = {}) =>
      fetch(`${target().url}${path}`, {
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
      });
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
  });
}

/** A destination page for the preview worker, on loopback (the process under test allows private networks). */
async function startPage(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

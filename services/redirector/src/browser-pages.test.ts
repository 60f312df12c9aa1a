import { createHash } from 'node:crypto';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createRedirector, type RedirectorDeps } from './app';
import { PAGE_CSP, prefersHtml } from './browser-pages';
import type { LinkCache } from './link-cache';

const LINK = { slug: 'known', location: 'https://example.com/', linkId: 'l', accountId: 'a' };
const cache = {
  peek: (slug: string) => (slug === 'known' ? LINK : undefined),
  resolve: async () => null,
} as unknown as LinkCache;

async function build(extra: Partial<RedirectorDeps> = {}) {
  return buildProcessServer(
    [createRedirector({ cache, ...extra })],
    { name: 'test', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
}

/** What a browser sends when it opens a page (Chromium's and Firefox's navigation Accept). */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const JSON_404 = { error: 'Link not found', code: 'not_found', detail: 'No link has this slug, or it was deleted.' };

describe('prefersHtml', () => {
  it.each([
    [BROWSER, true],
    ['text/html', true],
    ['text/*', true],
    ['*/*', false],
    [undefined, false],
    ['application/json', false],
    ['application/json, text/html', false],
    ['text/html;q=0.5, application/json', false],
    ['text/html;q=0, */*', false],
    ['text/html;q=x', false],
  ])('%s: %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('pages for browsers', () => {
  it.each([
    ['a browser', BROWSER, 'html'],
    ['curl', '*/*', 'json'],
    ['an API client', 'application/json', 'json'],
    ['a client without Accept', undefined, 'json'],
  ])('an unknown or malformed short link, for %s: a %s 404', async (_who, accept, kind) => {
    const app = await build();
    for (const url of ['/unknown', '/NOT-A-SLUG']) {
      const res = await app.inject({ url, headers: accept === undefined ? {} : { accept } });
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
      if (kind === 'json') {
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.json()).toEqual(JSON_404);
      } else {
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.body).toContain('<h1>Link not found</h1>');
        expect(res.body).not.toContain('<script');
        expect(res.body).not.toContain('unknown');
      }
    }
    await app.close();
  });

  it('redirects a known link the same whatever Accept says', async () => {
    const app = await build();
    for (const accept of [BROWSER, '*/*']) {
      const res = await app.inject({ url: '/known', headers: { accept } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://example.com/');
      expect(res.body).toBe('');
    }
    await app.close();
  });

  it('answers / with a landing page to a browser and the JSON 404 to anyone else', async () => {
    const app = await build();
    const page = await app.inject({ url: '/', headers: { accept: BROWSER } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.vary).toBe('Accept');
    expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(page.body).toContain('href="/docs"');
    expect(page.body).toContain('href="/dashboard"');
    expect(page.body).not.toContain('<script');
    // The one inline style is the one the policy allows, by its hash.
    const style = /<style>(.*)<\/style>/.exec(page.body)?.[1] ?? '';
    expect(PAGE_CSP).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    for (const accept of ['*/*', 'application/json']) {
      const api = await app.inject({ url: '/', headers: { accept } });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toEqual(JSON_404);
    }
    await app.close();
  });

  it('serves robots.txt: the API never crawled, the short links only when allowed', async () => {
    const closed = await build();
    const res = await closed.inject({ url: '/robots.txt' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('User-agent: *\nDisallow: /api/\nDisallow: /\n');
    await closed.close();
    const open = await build({ robotsAllowRedirects: true });
    const allowed = (await open.inject({ url: '/robots.txt' })).body;
    expect(allowed).toContain('Disallow: /api/\n');
    expect(allowed).toContain('Allow: /\n');
    expect(allowed).not.toContain('Disallow: /\n');
    await open.close();
  });

  it('serves a favicon from memory', async () => {
    const app = await build();
    const res = await app.inject({ url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.body).toMatch(/^<svg /);
    await app.close();
  });
});

import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { compileRouting, type Choice } from '@shortlink/redirect-rules';
import { createRedirector } from './app';
import { LinkCache } from './link-cache';

const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0';
const linkId = '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e';
const accountId = '6f1c1f8e-5a6b-4c1d-9e2f-0a1b2c3d4e5f';

async function redirector() {
  const routing = compileRouting(
    {
      rules: [
        { when: { device: ['mobile'] }, destinationUrl: 'https://example.com/app' },
        { when: { language: ['de'] }, destinationUrl: 'https://example.com/de' },
        { when: { query: { name: 'src', values: ['mail'] } }, destinationUrl: 'https://example.com/mail' },
        { when: { country: ['DE'] }, destinationUrl: 'https://example.com/country' },
      ],
      variants: [
        { destinationUrl: 'https://example.com/a', weight: 50 },
        { destinationUrl: 'https://example.com/b', weight: 50 },
      ],
    },
    { linkId, secret: 'secret' },
  )!;
  const cache = new LinkCache({
    lookup: async (slug) =>
      slug === 'routed'
        ? { slug, linkId, accountId, location: 'https://example.com/own', routing }
        : slug === 'plain'
          ? { slug, linkId, accountId, location: 'https://example.com/plain' }
          : null,
    maxEntries: 10,
    negativeTtlMs: 1000,
  });
  const choices: (Choice | null)[] = [];
  const app = await buildProcessServer(
    [
      createRedirector({
        cache,
        onRedirect: (_request, _link, _scanned, choice) => choices.push(choice),
        countryOf: (address) => (address === '81.2.69.160' ? 'DE' : 'XX'),
      }),
    ],
    { name: 'test', trustProxy: true, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  const get = async (url: string, headers: Record<string, string> = {}) =>
    (await app.inject({ method: 'GET', url, headers: { 'user-agent': WINDOWS, ...headers } })).headers.location;
  return { app, get, choices };
}

describe('a redirect of a link with rules and variants', () => {
  it('goes where the first rule that holds sends it, the query passed on; else to a variant, the same for one address', async () => {
    const { app, get, choices } = await redirector();
    // Twice each: the first a miss, then from the cache's third form.
    for (let i = 0; i < 2; i++) {
      expect(await get('/routed', { 'user-agent': ANDROID })).toBe('https://example.com/app');
      expect(await get('/routed?x=1', { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' })).toBe(
        'https://example.com/de?x=1',
      );
      expect(await get('/routed?src=mail')).toBe('https://example.com/mail?src=mail');
      expect(await get('/routed', { 'x-forwarded-for': '81.2.69.160' })).toBe('https://example.com/country');
    }
    expect(choices.slice(0, 4).map((c) => c && [c.matched, c.index])).toEqual([
      ['rule', 0],
      ['rule', 1],
      ['rule', 2],
      ['rule', 3],
    ]);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const address = `203.0.113.${i}`;
      const first = await get('/routed', { 'x-forwarded-for': address });
      expect(await get('/routed', { 'x-forwarded-for': address })).toBe(first);
      seen.add(first ?? '');
    }
    expect([...seen].sort()).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(choices.at(-1)).toMatchObject({ matched: 'variant' });
    await app.close();
  });

  it('leaves a link without routing as it was: its own destination, no choice', async () => {
    const { app, get, choices } = await redirector();
    expect(await get('/plain?src=mail', { 'user-agent': ANDROID })).toBe('https://example.com/plain?src=mail');
    expect(choices).toEqual([null]);
    await app.close();
  });
});

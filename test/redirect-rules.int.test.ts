import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * Rules and variants end to end, on real Postgres, Kafka and ClickHouse: created through the API, chosen by the
 * redirector from a request's User-Agent, language and query, counted by rule and variant in the link's analytics.
 * Two accounts hold links side by side: neither sees the other's counts.
 */
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function createRouted(slug: string, key: string) {
  const res = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: auth(key),
    payload: {
      url: `https://example.com/${slug}`,
      customSlug: slug,
      rules: [
        { when: { device: ['mobile'] }, destinationUrl: `https://example.com/${slug}/app` },
        { when: { language: ['de'] }, destinationUrl: `https://example.com/${slug}/de` },
        { when: { query: { name: 'src', values: ['mail'] } }, destinationUrl: `https://example.com/${slug}/mail` },
      ],
      variants: [
        { destinationUrl: `https://example.com/${slug}/a`, weight: 50 },
        { destinationUrl: `https://example.com/${slug}/b`, weight: 50 },
      ],
    },
  });
  expect(res.statusCode).toBe(201);
}

async function visit(path: string, headers: Record<string, string>): Promise<string> {
  const res = await system.app.inject({ method: 'GET', url: path, headers: { 'user-agent': DESKTOP, ...headers } });
  expect(res.statusCode).toBe(302);
  return res.headers.location as string;
}

const analytics = async (slug: string, key: string) =>
  (
    await system.app.inject({
      method: 'GET',
      url: `/api/v1/links/${slug}/analytics`,
      headers: { authorization: `Bearer ${key}` },
    })
  ).json();

describe('redirect rules and variants', () => {
  it('send each visit where its rule or variant says, and count the clicks by rule and by variant, per account', async () => {
    await createRouted('rules-pro', system.proKey);
    await createRouted('rules-free', system.freeKey);

    expect(await visit('/rules-pro', { 'user-agent': ANDROID, 'x-forwarded-for': '198.51.100.1' })).toBe(
      'https://example.com/rules-pro/app',
    );
    expect(
      await visit('/rules-pro?x=1', { 'accept-language': 'de-DE,de;q=0.9', 'x-forwarded-for': '198.51.100.2' }),
    ).toBe('https://example.com/rules-pro/de?x=1');
    expect(await visit('/rules-pro?src=mail', { 'x-forwarded-for': '198.51.100.3' })).toBe(
      'https://example.com/rules-pro/mail?src=mail',
    );
    // The rest split over the variants, each address always to the same one.
    const variantOf = new Map<string, string>();
    for (let i = 0; i < 20; i++) {
      const address = `203.0.113.${i}`;
      const location = await visit('/rules-pro', { 'x-forwarded-for': address });
      expect(['https://example.com/rules-pro/a', 'https://example.com/rules-pro/b']).toContain(location);
      expect(await visit('/rules-pro', { 'x-forwarded-for': address })).toBe(location);
      variantOf.set(address, location);
    }
    const onA = [...variantOf.values()].filter((l) => l.endsWith('/a')).length;
    // The other account's link, visited once by a rule.
    expect(await visit('/rules-free', { 'user-agent': ANDROID, 'x-forwarded-for': '198.51.100.9' })).toBe(
      'https://example.com/rules-free/app',
    );

    const pro = await eventually(
      async () => {
        const answer = await analytics('rules-pro', system.proKey);
        return answer.totalClicks === 43 ? answer : undefined;
      },
      60_000,
      'the 43 clicks of rules-pro',
    );
    expect(pro.byRule).toEqual([
      { rule: 0, clicks: 1, uniqueVisitors: 1 },
      { rule: 1, clicks: 1, uniqueVisitors: 1 },
      { rule: 2, clicks: 1, uniqueVisitors: 1 },
    ]);
    expect(pro.byVariant).toEqual(
      [
        { variant: 0, clicks: 2 * onA, uniqueVisitors: onA },
        { variant: 1, clicks: 2 * (20 - onA), uniqueVisitors: 20 - onA },
      ].filter((v) => v.clicks > 0),
    );
    const free = await eventually(
      async () => {
        const answer = await analytics('rules-free', system.freeKey);
        return answer.totalClicks === 1 ? answer : undefined;
      },
      60_000,
      'the click of rules-free',
    );
    expect(free.byRule).toEqual([{ rule: 0, clicks: 1, uniqueVisitors: 1 }]);
    expect(free.byVariant).toEqual([]);
  }, 120_000);

  it('PATCH replaces the rules: the next redirect follows the new ones', async () => {
    await createRouted('rules-change', system.proKey);
    expect(await visit('/rules-change', { 'user-agent': ANDROID })).toBe('https://example.com/rules-change/app');
    const res = await system.app.inject({
      method: 'PATCH',
      url: '/api/v1/links/rules-change',
      headers: auth(system.proKey),
      payload: { rules: [], variants: null },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ rules: [], variants: null });
    expect(await visit('/rules-change', { 'user-agent': ANDROID })).toBe('https://example.com/rules-change');
  });
});

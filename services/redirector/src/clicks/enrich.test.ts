import { countryFrom, isCountable, referrerOrigin, visitorHash } from './enrich';
import { loadCountryLookup } from './geo';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const facts = (over: Partial<Parameters<typeof isCountable>[0]> = {}) => ({
  method: 'GET',
  userAgent: CHROME,
  purpose: undefined,
  secPurpose: undefined,
  xMoz: undefined,
  ...over,
});

describe('isCountable', () => {
  it('counts a browser GET', () => {
    expect(isCountable(facts())).toBe(true);
  });

  it.each([
    ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    ['Slack', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
    ['Twitter', 'Twitterbot/1.0'],
    ['Facebook', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'],
    ['Discord', 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'],
    ['WhatsApp', 'WhatsApp/2.23.20.0 A'],
    ['Telegram', 'TelegramBot (like TwitterBot)'],
    ['curl', 'curl/8.5.0'],
    ['python-requests', 'python-requests/2.31.0'],
    ['Go', 'Go-http-client/1.1'],
  ])('does not count %s', (_name, userAgent) => {
    expect(isCountable(facts({ userAgent }))).toBe(false);
  });

  it('does not count an empty user agent, HEAD, or a prefetch', () => {
    expect(isCountable(facts({ userAgent: '' }))).toBe(false);
    expect(isCountable(facts({ userAgent: undefined }))).toBe(false);
    expect(isCountable(facts({ method: 'HEAD' }))).toBe(false);
    expect(isCountable(facts({ secPurpose: 'prefetch;prerender' }))).toBe(false);
    expect(isCountable(facts({ purpose: 'prefetch' }))).toBe(false);
    expect(isCountable(facts({ xMoz: 'prefetch' }))).toBe(false);
  });
});

describe('referrerOrigin', () => {
  it.each([
    [undefined, 'Direct'],
    ['', 'Direct'],
    ['   ', 'Direct'],
    ['not a url', 'Direct'],
    ['https://news.ycombinator.com/item?id=1', 'https://news.ycombinator.com'],
    ['http://Example.COM:8080/a', 'http://example.com:8080'],
    ['android-app://com.slack/', 'android-app://com.slack'],
    ['about:blank', 'Direct'],
  ])('%j → %s', (referer, expected) => {
    expect(referrerOrigin(referer)).toBe(expected);
  });
});

describe('visitorHash', () => {
  it('is a keyed hash: stable for one key, different under another, never the IP', () => {
    const a = visitorHash('secret-one-0123456789', '203.0.113.9');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(visitorHash('secret-one-0123456789', '203.0.113.9')).toBe(a);
    expect(visitorHash('secret-two-0123456789', '203.0.113.9')).not.toBe(a);
    expect(a).not.toContain('203');
  });
});

describe('country lookup', () => {
  const countryOf = loadCountryLookup();

  it('answers ISO 3166-1 alpha-2 codes from the shipped database, XX when unknown', () => {
    expect(countryOf('8.8.8.8')).toBe('US');
    expect(countryOf('81.2.69.142')).toBe('GB');
    expect(countryOf('127.0.0.1')).toBe('XX');
    expect(countryOf('not an ip')).toBe('XX');
    expect(countryOf('2a00:1450:4001:80b::200e')).toMatch(/^[A-Z]{2}$/);
  });

  it('never passes on a code that is not two capital letters', () => {
    expect(countryFrom(() => ({ country_code: 'EU1' }))('1.1.1.1')).toBe('XX');
    expect(countryFrom(() => null)('1.1.1.1')).toBe('XX');
  });
});

import { CRAWLER_FAMILIES } from '@shortlink/events';
import { filteredAs, isCountable } from './countable-click';

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
    expect(filteredAs(facts())).toBeUndefined();
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

describe('filteredAs: why a redirect is not a click', () => {
  it.each([
    ['HEAD', facts({ method: 'HEAD' }), 'head'],
    ['any other method', facts({ method: 'OPTIONS' }), 'head'],
    ['no user agent', facts({ userAgent: undefined }), 'no_user_agent'],
    ['a blank user agent', facts({ userAgent: '  \t ' }), 'no_user_agent'],
    ['Sec-Purpose: prefetch', facts({ secPurpose: 'prefetch' }), 'prefetch'],
    ['Sec-Purpose: prerender', facts({ secPurpose: 'prefetch;prerender' }), 'prefetch'],
    ['Purpose: preview (Safari)', facts({ purpose: 'preview' }), 'prefetch'],
    ['X-Moz: prefetch', facts({ xMoz: 'prefetch' }), 'prefetch'],
    // HEAD wins over the rest: the request's method is the first thing known of it.
    ['a HEAD from curl', facts({ method: 'HEAD', userAgent: 'curl/8.5.0' }), 'head'],
  ])('%s is %s', (_name, request, reason) => {
    expect(filteredAs(request)).toEqual({ reason });
  });

  it.each([
    ['curl/8.5.0'],
    ['Wget/1.21.4'],
    ['python-requests/2.31.0'],
    ['Python-urllib/3.12'],
    ['Go-http-client/2.0'],
    ['axios/1.7.2'],
    ['node-fetch/1.0 (+https://github.com/bitinn/node-fetch)'],
    ['okhttp/4.12.0'],
    ['Java/17.0.2'],
    ['Apache-HttpClient/4.5.14 (Java/17.0.9)'],
    ['libwww-perl/6.72'],
    ['GuzzleHttp/7'],
  ])('%s is an HTTP library', (userAgent) => {
    expect(filteredAs(facts({ userAgent }))).toEqual({ reason: 'http_library' });
  });

  it.each([
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'googlebot'],
    [
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'googlebot',
    ],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'bingbot'],
    ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'slackbot'],
    ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'facebookexternalhit'],
    ['Twitterbot/1.0', 'twitterbot'],
    ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 'discordbot'],
    ['WhatsApp/2.23.20.0 A', 'whatsapp'],
    ['TelegramBot (like TwitterBot)', 'telegrambot'],
    ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 'linkedinbot'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
      'applebot',
    ],
    ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'yandexbot'],
    ['Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', 'baiduspider'],
    ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'duckduckbot'],
    [
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      'ai_crawler',
    ],
    ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 'seo_crawler'],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      'headless_browser',
    ],
    ['SomeNewCrawler/1.0 (+https://crawler.example/bot)', 'other'],
  ])('%s is a crawler of the family %s', (userAgent, family) => {
    expect(filteredAs(facts({ userAgent }))).toEqual({ reason: 'crawler', family });
  });

  it('never takes a family from the user agent: hostile agents land on the fixed list', () => {
    const hostile = [
      'bot<script>alert(1)</script>',
      'crawler\u0000\u202e/evil',
      "spider'); DROP TABLE redirects_filtered;--",
      `${'x'.repeat(5000)} bot`,
      'Googlebot\r\nSet-Cookie: a=b',
      '\ud800 lone surrogate bot',
    ];
    for (const userAgent of hostile) {
      const verdict = filteredAs(facts({ userAgent }));
      expect(verdict?.reason).toBe('crawler');
      expect(CRAWLER_FAMILIES).toContain(verdict?.family);
    }
  });

  it('shares its answers: nothing is made per request', () => {
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    expect(filteredAs(facts({ userAgent: googlebot }))).toBe(filteredAs(facts({ userAgent: `${googlebot} ` })));
    expect(filteredAs(facts({ method: 'HEAD' }))).toBe(filteredAs(facts({ method: 'HEAD' })));
  });
});

import { isCountable } from './countable-click';

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

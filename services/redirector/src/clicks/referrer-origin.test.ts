import { referrerOrigin } from './referrer-origin';

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

import { logFormatFor } from '@shortlink/http';
import { localUrl, showsBanner, startBanner } from './start-banner';

describe('the start banner', () => {
  it('says where it runs, the dashboard, the API reference, how to create a key and where the data is', () => {
    expect(startBanner({ url: 'http://localhost:3000', dataDir: '/home/me/shortlink/data' })).toBe(
      [
        'shortlink is ready at http://localhost:3000',
        '  dashboard      http://localhost:3000/dashboard',
        '  API reference  http://localhost:3000/docs',
        '  create a key   npm run apikey -- create --name me --plan pro',
        '  data           /home/me/shortlink/data (embedded mode)',
        '  stop           Ctrl-C',
      ].join('\n'),
    );
  });

  it('names no data directory on servers', () => {
    expect(startBanner({ url: 'http://localhost:3000' })).not.toMatch(/data/);
  });

  it.each([
    [undefined, true, true],
    ['pretty', true, true],
    ['json', true, false],
    [undefined, false, false],
    ['pretty', false, false],
  ] as const)('with LOG_FORMAT=%s and stderr a terminal: %s, is shown: %s', (format, terminal, shown) => {
    expect(showsBanner(format, terminal)).toBe(shown);
  });

  it.each([
    ['0.0.0.0', 3000, 'http://localhost:3000'],
    ['127.0.0.1', 8080, 'http://127.0.0.1:8080'],
    ['::', 3000, 'http://localhost:3000'],
    ['::1', 3000, 'http://[::1]:3000'],
    ['localhost', 80, 'http://localhost'],
  ])('opens %s:%d at %s', (host, port, url) => {
    expect(localUrl(host, port)).toBe(url);
  });
});

describe('the log format', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('with LOG_FORMAT=%s and stdout a terminal: %s, is %s', (setting, terminal, format) => {
    expect(logFormatFor(setting, terminal)).toBe(format);
  });
});

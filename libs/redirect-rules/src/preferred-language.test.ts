import { languageCode, preferredLanguage } from './preferred-language';

describe('preferredLanguage', () => {
  it.each([
    ['en-US,en;q=0.9,fr;q=0.8', 'en'],
    ['fr;q=0.5, de-AT;q=0.9, en;q=0.7', 'de'],
    ['pt-BR', 'pt'],
    ['EN-gb', 'en'],
    ['*;q=1, es;q=0.2', 'es'],
    ['es;q=0, it;q=0.1', 'it'],
    ['de;q=0.8, en;q=0.8', 'de'],
    ['nl;q=banana, sv;q=0.3', 'sv'],
    ['', ''],
    [undefined, ''],
    [',,;q=,', ''],
    ['i-klingon, en;q=0.5', ''],
    ['en;q=0.5, de; Q=0.501', 'de'],
    ['en;level=1;q=0.4, fr;q=0.3', 'en'],
    ['en;q=1.5, fr;q=0.3', 'fr'],
  ])('given Accept-Language %j, when read, then the preferred language is %j', (header, expected) => {
    expect(preferredLanguage(header)).toBe(expected === '' ? 0 : languageCode(expected));
  });

  it('given subtags, when coded, then each has its own number and case does not matter', () => {
    const codes = ['en', 'de', 'ed', 'eng', 'zh', 'zz', 'aa'].map(languageCode);
    expect(new Set(codes).size).toBe(codes.length);
    expect(languageCode('EN')).toBe(languageCode('en'));
    expect(languageCode('en-US')).toBe(0);
  });

  // Read once a header, it takes about a millisecond; searched again for each entry, seconds.
  it('given 64 KiB of bare entries, when read, then it is read once, not once an entry', () => {
    const hostile = 'a,'.repeat(32_768);
    for (let i = 0; i < 3; i++) preferredLanguage(hostile); // warmed: timed optimised, as the redirector runs it
    const started = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) preferredLanguage(hostile);
    expect(Number(process.hrtime.bigint() - started) / 5).toBeLessThan(20_000_000);
  });
});

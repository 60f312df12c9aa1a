import { headerText } from './header-text';

/** A value as Node's HTTP parser hands it over: each byte one character. */
const asNodeReadsIt = (bytes: Buffer) => bytes.toString('latin1');

describe('a header value as its client wrote it', () => {
  it('reads bytes that are UTF-8 as UTF-8', () => {
    const written = 'Mozilla/5.0 (X11; Linux x86_64) Büro-Browser/1.0 日本';
    expect(headerText(asNodeReadsIt(Buffer.from(written)))).toBe(written);
  });

  it('keeps ASCII, and bytes that are not UTF-8, as Node read them', () => {
    expect(headerText('Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0')).toBe(
      'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
    );
    const latin1 = asNodeReadsIt(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(headerText(latin1)).toBe('café');
  });
});

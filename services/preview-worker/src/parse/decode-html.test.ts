import fc from 'fast-check';
import { createHtmlDecoder, decodeHtml } from './decode-html';

describe('decodeHtml', () => {
  const latin1 = Buffer.from('<title>caf\xe9</title>', 'latin1');

  it('uses the charset of the Content-Type header', () => {
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toBe('<title>café</title>');
    expect(decodeHtml(latin1, 'text/html; charset="windows-1252"')).toBe('<title>café</title>');
  });

  it('finds a <meta charset> near the top when the header has none', () => {
    const body = Buffer.concat([Buffer.from('<meta charset="iso-8859-1">'), latin1]);
    expect(decodeHtml(body, 'text/html')).toContain('café');
    const httpEquiv = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
      latin1,
    ]);
    expect(decodeHtml(httpEquiv, 'text/html')).toContain('café');
  });

  it('reads a page whose <meta> says UTF-16 as UTF-8, as the HTML standard does: the meta was ASCII', () => {
    for (const label of ['utf-16', 'UTF-16LE', 'utf-16be']) {
      const body = Buffer.from(`<meta charset="${label}"><title>café ✓</title>`);
      expect(decodeHtml(body, 'text/html')).toContain('<title>café ✓</title>');
    }
    const userDefined = Buffer.concat([Buffer.from('<meta charset="x-user-defined">'), latin1]);
    expect(decodeHtml(userDefined, 'text/html')).toContain('café');
  });

  it('defaults to UTF-8, honours a BOM, and survives unknown labels and bad bytes', () => {
    expect(decodeHtml(Buffer.from('<title>café</title>'), 'text/html')).toBe('<title>café</title>');
    expect(decodeHtml(Buffer.from('\ufeffhi'), 'text/html; charset=iso-8859-1')).toBe('hi');
    expect(decodeHtml(Buffer.from('ok'), 'text/html; charset=x-made-up')).toBe('ok');
    expect(decodeHtml(latin1, 'text/html')).toBe('<title>caf\ufffd</title>');
  });

  it('decodes a page cut anywhere, a character or the charset’s <meta> split across pieces, as it decodes it whole', () => {
    const pages = fc.tuple(
      fc.constantFrom('', '<meta charset="iso-8859-1">', '<meta charset="shift_jis">', '\ufeff'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
      // Pages shorter than the prescan, and pages whose text comes after it
      fc.constantFrom(0, 990, 1010, 1100),
    );
    fc.assert(
      fc.property(pages, fc.integer({ min: 1, max: 64 }), ([prefix, text, padding], pieceBytes) => {
        const body = Buffer.from(`${prefix}${' '.repeat(padding)}<title>${text}</title>`);
        const decoder = createHtmlDecoder('text/html');
        let decoded = '';
        for (let at = 0; at < body.length; at += pieceBytes)
          decoded += decoder.write(body.subarray(at, at + pieceBytes));
        expect(decoded + decoder.end()).toBe(decodeHtml(body, 'text/html'));
      }),
    );
  });
});

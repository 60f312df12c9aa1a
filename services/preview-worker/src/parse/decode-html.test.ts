import { decodeHtml } from './decode-html';

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
});

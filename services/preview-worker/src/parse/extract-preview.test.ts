import fc from 'fast-check';
import { createPreviewExtractor, PARSE_LIMITS, extractPreview, LIMITS } from './extract-preview';

const page = (head: string, body = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const FINAL = 'https://example.com/articles/42?ref=x';

describe('extractPreview', () => {
  it('prefers Open Graph tags', () => {
    const html = page(`
      <title>Document title</title>
      <meta name="description" content="Plain description">
      <meta name="twitter:title" content="Twitter title">
      <meta property="og:title" content="OG title">
      <meta property="og:description" content="OG description">
      <meta property="og:image" content="https://cdn.example.com/og.png">`);
    expect(extractPreview(html, FINAL)).toEqual({
      title: 'OG title',
      description: 'OG description',
      image: 'https://cdn.example.com/og.png',
    });
  });

  it('falls back to Twitter card tags, then to the document title and description', () => {
    const twitter = page(`
      <title>Document title</title>
      <meta name="description" content="Plain description">
      <meta name="twitter:title" content="Twitter title">
      <meta name="twitter:image" content="/t.png">`);
    expect(extractPreview(twitter, FINAL)).toEqual({
      title: 'Twitter title',
      description: 'Plain description',
      image: 'https://example.com/t.png',
    });
    expect(extractPreview(page('<title>Only a title</title>'), FINAL)).toEqual({
      title: 'Only a title',
      description: null,
      image: null,
    });
  });

  it('resolves relative images against the final URL', () => {
    expect(extractPreview(page('<meta property="og:image" content="img/a.png">'), FINAL).image).toBe(
      'https://example.com/articles/img/a.png',
    );
    expect(extractPreview(page('<meta property="og:image" content="//cdn.example.org/b.jpg">'), FINAL).image).toBe(
      'https://cdn.example.org/b.jpg',
    );
  });

  it('ignores images that are not http(s), and falls through to the next candidate', () => {
    const html = page(`
      <meta property="og:image" content="javascript:alert(1)">
      <meta name="twitter:image" content="data:image/png;base64,AAAA">
      <meta name="twitter:image:src" content="https://ok.example/x.png">`);
    expect(extractPreview(html, FINAL).image).toBe('https://ok.example/x.png');
  });

  it('decodes entities and collapses whitespace', () => {
    const html = page(`
      <title>
        Fish &amp; Chips &mdash;   the &#8220;best&#8221; &lt;guide&gt;
      </title>
      <meta property="og:description" content="  caf&eacute;&nbsp;au lait &#x1F600;
        line two ">`);
    expect(extractPreview(html, FINAL)).toMatchObject({
      title: 'Fish & Chips — the “best” <guide>',
      description: 'café au lait 😀 line two',
    });
  });

  it('skips empty values so the next source is used', () => {
    const html = page('<meta property="og:title" content="   "><meta name="twitter:title" content="Real">');
    expect(extractPreview(html, FINAL).title).toBe('Real');
  });

  it('caps lengths to the event limits without splitting a character', () => {
    const long = '😀'.repeat(400);
    const html = page(`<title>${long}</title><meta name="description" content="${'d'.repeat(5000)}">`);
    const preview = extractPreview(html, FINAL);
    expect(preview.title!.length).toBeLessThanOrEqual(LIMITS.title);
    expect(preview.title!.endsWith('…')).toBe(true);
    expect(preview.title).not.toMatch(/[\ud800-\udbff]…$/);
    expect(preview.description!.length).toBe(LIMITS.description);
    const hugeImage = page(`<meta property="og:image" content="https://e.com/${'a'.repeat(3000)}">`);
    expect(extractPreview(hugeImage, FINAL).image).toBeNull();
  });

  it('reads the page title, not an SVG title, and accepts case and attribute variations', () => {
    const html = `<HTML><HEAD><META PROPERTY="OG:DESCRIPTION" CONTENT="Upper"></HEAD>
      <body><svg><title>icon</title></svg><title>Late title</title></body></HTML>`;
    expect(extractPreview(html, FINAL)).toEqual({ title: 'Late title', description: 'Upper', image: null });
  });

  it('stops at tags nested deeper than any page nests them, with what it read before', () => {
    // htmlparser2's cost for unclosed tags grows with the square of their depth; 1 KB of gzip held the loop 30 s.
    const deep = '<b>'.repeat(PARSE_LIMITS.depth);
    expect(extractPreview(`<title>Before</title>${deep}<meta property="og:title" content="After">`, FINAL)).toEqual({
      title: 'Before',
      description: null,
      image: null,
    });
    expect(extractPreview(`${'<b>'.repeat(PARSE_LIMITS.depth - 1)}<title>Deep</title>`, FINAL).title).toBe('Deep');
  });

  it('stops at a piece of markup longer than any page has, with what it read before, but reads text of any length', () => {
    // The parser holds a tag or a comment until its end: a megabyte of one is a megabyte of the worker's memory.
    const long = 'x'.repeat(2 * PARSE_LIMITS.pieceChars);
    const after = '<meta property="og:title" content="After">';
    expect(extractPreview(`<title>Before</title><!--${long}-->${after}`, FINAL).title).toBe('Before');
    expect(extractPreview(`<title>Before</title><meta name="description" content="${long}">${after}`, FINAL)).toEqual({
      title: 'Before',
      description: null,
      image: null,
    });
    expect(extractPreview(`<title>Before</title><${long}>${after}`, FINAL).title).toBe('Before');
    const text = 'x '.repeat(PARSE_LIMITS.pieceChars);
    expect(extractPreview(`<script>${text}</script><p>${text}</p>${after}`, FINAL).title).toBe('After');
    expect(extractPreview(`<!--${'x'.repeat(PARSE_LIMITS.pieceChars - 100)}-->${after}`, FINAL).title).toBe('After');
  });

  it('counts elements closed by the parser as closed: void tags and implied ends do not nest', () => {
    const page = `<html><head>${'<meta name="x"><link rel="y"><br><img src="z">'.repeat(400)}</head><body><ul>${'<li>item'.repeat(400)}</ul>${'<p>text'.repeat(400)}<table>${'<tr><td>a<td>b'.repeat(400)}</table><title>After many</title></body></html>`;
    expect(extractPreview(page, FINAL).title).toBe('After many');
  });

  it('stops after as many open tags as any page has', () => {
    const page = `${'<i></i>'.repeat(PARSE_LIMITS.openTags)}<title>Too late</title>`;
    expect(extractPreview(page, FINAL).title).toBeNull();
  });

  it('drops characters that change how a title reads without being seen, and keeps emoji whole', () => {
    const html = '<title>a\u202Egnp.exe\u200B\u2066x\u2069 \ufeffok 👨\u200D👩\u200D👧</title>';
    expect(extractPreview(html, FINAL).title).toBe('agnp.exex ok 👨\u200D👩\u200D👧');
    // Soft hyphens, fillers and annotation marks: a title that reads blank, or other than it is
    const blank =
      '<title>\u3164\u115f\u1160\uffa0</title><meta name="description" content="in\u00advis\u180eible\ufff9x\ufffb">';
    expect(extractPreview(blank, FINAL)).toMatchObject({ title: null, description: 'invisiblex' });
  });

  it('keeps no image whose URL carries credentials', () => {
    const html = '<meta property="og:image" content="https://user:secret@img.example/x.png">';
    expect(extractPreview(html, FINAL).image).toBeNull();
  });

  it('survives broken markup', () => {
    const html = '<html><head><title>Unclosed <meta property="og:image" content="/x.png"';
    expect(() => extractPreview(html, FINAL)).not.toThrow();
    expect(extractPreview('', FINAL)).toEqual({ title: null, description: null, image: null });
  });

  it('reads the same fields however the page is cut into pieces', () => {
    const piece = fc.constantFrom(
      '<title>',
      '</title>',
      '<meta property="og:title" content="',
      '<meta name="description" content="',
      '<meta property="og:image" content="/i.png',
      '">',
      '<svg>',
      '</svg>',
      '<b>',
      '<!-- c -->',
      '&amp;',
      '&#x1F600;',
      '😀',
      'caf\u00e9',
      ' \u0001 ',
      '\u202e',
      '\n\t',
      ' '.repeat(3000),
      'word '.repeat(100),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 5000 }), (pieces, pieceChars) => {
        const html = pieces.join('');
        const extractor = createPreviewExtractor(FINAL);
        for (let at = 0; at < html.length; at += pieceChars) extractor.write(html.slice(at, at + pieceChars));
        expect(extractor.end()).toEqual(extractPreview(html, FINAL));
      }),
    );
  });

  it('reads a title of a megabyte as a whole, holding only what its cap needs', () => {
    const spaced = `<title>${' \n'.repeat(500_000)}Hello${' \u0001 '.repeat(1000)}World ${'\t'.repeat(100_000)}</title>`;
    const extractor = createPreviewExtractor(FINAL);
    for (let i = 0; i < spaced.length; i += 16 * 1024) extractor.write(spaced.slice(i, i + 16 * 1024));
    expect(extractor.end().title).toBe('Hello World');
    const long = createPreviewExtractor(FINAL);
    long.write('<title>');
    for (let i = 0; i < 64; i++) long.write(`${'x'.repeat(16 * 1024)}  `);
    expect(long.end().title).toBe(`${'x'.repeat(LIMITS.title - 1)}…`);
  });
});

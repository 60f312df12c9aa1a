import fc from 'fast-check';
import { keyOf, passQueryThrough } from './query-pass-through';
import { redirectLocation } from './redirect-location';

const at = (destination: string) => redirectLocation(destination) as string;

describe('a query on the short URL, passed on to the destination', () => {
  it('is added to a destination without a query', () => {
    expect(passQueryThrough(at('https://example.com/a'), '/abc?utm_source=x&ref=y')).toBe(
      'https://example.com/a?utm_source=x&ref=y',
    );
  });

  it('is merged into the destination’s query; on a clash the short URL’s value wins', () => {
    expect(passQueryThrough(at('https://example.com/a?ref=dub&id=7'), '/abc?ref=dub.co&utm_medium=email')).toBe(
      'https://example.com/a?id=7&ref=dub.co&utm_medium=email',
    );
  });

  it('replaces every value of a key the request names, and keeps every value it sends', () => {
    expect(passQueryThrough(at('https://example.com/?a=1&b=2&a=3'), '/abc?a=x&a=y')).toBe(
      'https://example.com/?b=2&a=x&a=y',
    );
  });

  it('compares keys decoded', () => {
    expect(
      passQueryThrough(at('https://example.com/?utm%5Fsource=old&my+key=1'), '/abc?utm_source=new&my%20key=2'),
    ).toBe('https://example.com/?utm_source=new&my%20key=2');
    expect(keyOf('a+b%2B=1')).toBe('a b+');
    // Escape by escape, as a form decoder reads them: one that does not decode keeps no other from it.
    expect(keyOf('%E0%A4%A=1')).toBe('\ufffd%A');
    expect(keyOf('r%65f%zz=1')).toBe('ref%zz');
    expect(passQueryThrough(at('https://example.com/?r%65f%zz=old&b=2'), '/abc?ref%zz=new')).toBe(
      'https://example.com/?b=2&ref%zz=new',
    );
  });

  it('keeps the destination’s empty parameters as they are spelt', () => {
    expect(passQueryThrough(at('https://example.com/?a=1&&b=2&'), '/abc?c=3')).toBe(
      'https://example.com/?a=1&&b=2&&c=3',
    );
  });

  it('finds no query in the fragment of the request, as the router finds no slug there', () => {
    const location = at('https://example.com/a?x=1');
    expect(passQueryThrough(location, '/abc#?a=1')).toBe(location);
    expect(passQueryThrough(location, '/abc#f?a=1&b=2')).toBe(location);
  });

  it('keeps the destination’s fragment, and takes a # the client sent as data', () => {
    expect(passQueryThrough(at('https://example.com/a?x=1#top'), '/abc?y=2')).toBe('https://example.com/a?x=1&y=2#top');
    expect(passQueryThrough(at('https://example.com/a#top'), '/abc?y=2#evil')).toBe(
      'https://example.com/a?y=2%23evil#top',
    );
  });

  it('changes nothing for a request without a query, or with an empty one', () => {
    const location = at('https://example.com/a?x=1#f');
    expect(passQueryThrough(location, '/abc')).toBe(location);
    expect(passQueryThrough(location, '/abc?')).toBe(location);
    expect(passQueryThrough(location, '/abc?&&')).toBe(location);
  });

  it('cannot put anything but a query into the Location header', () => {
    const hostile =
      '/abc?a=%0d%0aSet-Cookie:%20x=1&b=\r\nLocation: https://evil.example/&c=<script>"\'\u0000\u007f&%00=%ZZ';
    const result = passQueryThrough(at('https://example.com/p?k=v#f'), hostile);
    expect(result).toMatch(/^https:\/\/example\.com\/p\?[\x21-\x7e]*#f$/);
    expect(new URL(result).href).toBe(result);
    expect(new URL(result).searchParams.get('k')).toBe('v');
  });
});

/** A key or value as a browser would send it, or as anyone could. */
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'b', 'utm_source', 'ref', 'a b', '+', '%'));
const params = fc.array(fc.tuple(text, text), { maxLength: 6 });
const encode = (pairs: [string, string][]) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const destination = fc
  .tuple(
    fc.constantFrom('https://example.com/', 'http://shop.example:8080/p/a%20th', 'https://bücher.example/x'),
    params,
    fc.constantFrom('', '#frag', '#a?b=c'),
  )
  .map(([base, pairs, fragment]) => at(`${base}${pairs.length ? `?${encode(pairs)}` : ''}${fragment}`));

describe('the merge, for any destination and request', () => {
  it('never drops a destination parameter the request does not set, nor changes its order', () => {
    fc.assert(
      fc.property(destination, params, (location, given) => {
        const setKeys = new Set(given.map(([k]) => k));
        const before = [...new URL(location).searchParams].filter(([k]) => !setKeys.has(k));
        const after = [...new URL(passQueryThrough(location, `/abc?${encode(given)}`)).searchParams].filter(
          ([k]) => !setKeys.has(k),
        );
        expect(after).toEqual(before);
      }),
    );
  });

  it('gives every key the request sets exactly the request’s values', () => {
    fc.assert(
      fc.property(destination, params, (location, given) => {
        const merged = new URL(passQueryThrough(location, `/abc?${encode(given)}`)).searchParams;
        for (const [key] of given) {
          expect(merged.getAll(key)).toEqual(given.filter(([k]) => k === key).map(([, v]) => v));
        }
      }),
    );
  });

  it('keeps the origin, the path and the fragment, and stays a WHATWG-serialised URL, whatever the request', () => {
    fc.assert(
      fc.property(destination, fc.string({ unit: 'binary', maxLength: 60 }), (location, raw) => {
        const result = passQueryThrough(location, `/abc?${raw}`);
        const before = new URL(location);
        const after = new URL(result);
        expect([after.origin, after.pathname, after.hash]).toEqual([before.origin, before.pathname, before.hash]);
        expect(after.href).toBe(result);
        expect(result).toMatch(/^[\x21-\x7e]+$/);
      }),
    );
  });
});

import { canonicalJson, parseIdempotencyKey, requestHash } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it.each([
    ['a UUID', '3f0c1e9a-7b2d-4c55-9a8e-0d1f2a3b4c5d'],
    ['one character', 'k'],
    ['255 characters', 'k'.repeat(255)],
    ['printable ASCII with spaces', 'order 42 / retry #1 ~!'],
  ])('given %s, then it is the key', (_name, header) => {
    expect(parseIdempotencyKey(header)).toEqual({ ok: true, key: header });
  });

  it('given no header, then there is no key', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ ok: true, key: null });
  });

  it.each([
    ['an empty value', '', 'Idempotency-Key is empty.'],
    ['256 characters', 'k'.repeat(256), 'Idempotency-Key is 256 characters; at most 255 are taken.'],
    ['a non-ASCII character', 'clé', 'Idempotency-Key holds U+00E9 at position 3; only printable ASCII is taken.'],
    ['a character beyond U+FFFF', 'a😀', 'Idempotency-Key holds U+1F600 at position 2; only printable ASCII is taken.'],
    ['a control character', 'a\tb', 'Idempotency-Key holds U+0009 at position 2; only printable ASCII is taken.'],
    ['DEL', 'a\u007fb', 'Idempotency-Key holds U+007F at position 2; only printable ASCII is taken.'],
    ['the header twice', ['a', 'b'], 'Idempotency-Key came more than once.'],
  ])('given %s, then it is refused, saying why without echoing it', (_name, header, detail) => {
    expect(parseIdempotencyKey(header)).toEqual({ ok: false, detail });
  });
});

describe('canonicalJson', () => {
  it('given objects with keys in any order and any white space, then they read the same', () => {
    const a = JSON.parse('{"url":"https://example.com","tag":"x","nested":{"b":1,"a":[1,{"d":null,"c":true}]}}');
    const b = JSON.parse(
      ' { "nested" : { "a" : [ 1 , { "c" : true , "d" : null } ] , "b" : 1.0 } , "tag":"x","url":"https://example.com" } ',
    );
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe(
      '{"nested":{"a":[1,{"c":true,"d":null}],"b":1},"tag":"x","url":"https://example.com"}',
    );
  });

  it('given arrays in another order, then they differ: order is meaning', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('given a number too large for a double, then it is not null, nor the negative one', () => {
    const [huge, negative, none] = ['{"tag":1e400}', '{"tag":-1e400}', '{"tag":null}'].map((text) =>
      canonicalJson(JSON.parse(text)),
    );
    expect(new Set([huge, negative, none]).size).toBe(3);
  });

  it('given a body nested a hundred thousand deep, then it is written without exhausting the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(canonicalJson(deep)).toHaveLength(200_000);
  });
});

describe('requestHash', () => {
  const body = { url: 'https://example.com', customSlug: 'go' };

  it('given the same method, route and body in another order, then the hash is the same', () => {
    expect(requestHash('POST', '/api/v1/links', body)).toBe(
      requestHash('post', '/api/v1/links', { customSlug: 'go', url: 'https://example.com' }),
    );
  });

  it('given another body, route or method, then the hash differs', () => {
    const hash = requestHash('POST', '/api/v1/links', body);
    expect(requestHash('POST', '/api/v1/links', { ...body, tag: 'x' })).not.toBe(hash);
    expect(requestHash('POST', '/api/v1/links/bulk', body)).not.toBe(hash);
    expect(requestHash('PUT', '/api/v1/links', body)).not.toBe(hash);
  });
});

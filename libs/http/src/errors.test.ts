import { excerpt, kindOf } from './errors';

describe('excerpt', () => {
  it.each([
    ['short text, quoted', 'promo', '"promo"'],
    ['40 characters at most, then …', 'a'.repeat(41), `"${'a'.repeat(40)}…"`],
    ['characters counted as code points: an emoji is one, never cut in half', '😀'.repeat(41), `"${'😀'.repeat(40)}…"`],
    ['U+0000 and controls as \\uXXXX', 'a\u0000b\u001b\u007f\u0085', '"a\\u0000b\\u001b\\u007f\\u0085"'],
    ['escapes count as shown: six \\u0000 of 41 fill the 40', '\u0000'.repeat(41), `"${'\\u0000'.repeat(6)}…"`],
    ['a lone surrogate as \\uXXXX', '\ud800x\udfff', '"\\ud800x\\udfff"'],
    ['line separators as \\uXXXX', 'a\u2028b', '"a\\u2028b"'],
  ])('%s', (_name, value, shown) => {
    expect(excerpt(value)).toBe(shown);
  });

  it('never holds a character a store or a terminal cannot take', () => {
    const all = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).join('');
    for (let i = 0; i < all.length; i += 40) {
      // eslint-disable-next-line no-control-regex -- control characters are what must not be echoed
      expect(excerpt(all.slice(i, i + 40))).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/);
    }
  });
});

describe('kindOf', () => {
  it.each([
    [null, 'null'],
    [undefined, 'nothing'],
    [[1], 'an array'],
    [{}, 'an object'],
    ['x', 'the string "x"'],
    [42, 'the number 42'],
    [true, 'the boolean true'],
  ])('names %p as %s', (value, name) => {
    expect(kindOf(value)).toBe(name);
  });
});

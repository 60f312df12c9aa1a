import fc from 'fast-check';
import { isStorableJson, isStorableText, storablePrefix } from './storable-text';

describe('storable text', () => {
  it.each([
    ['plain', 'https://example.com/a?b=c', true],
    ['non-ASCII and emoji (a whole surrogate pair)', 'Été 🚀', true],
    ['U+0000', 'a\u0000b', false],
    ['a lone high surrogate', 'a\ud800', false],
    ['a lone low surrogate', '\udc00b', false],
    ['a reversed pair', '\udc00\ud800', false],
  ])('%s', (_name, text, storable) => {
    expect(isStorableText(text)).toBe(storable);
  });

  it('looks at every string of a body, keys and nested values included', () => {
    expect(isStorableJson({ url: 'https://example.com', tags: ['a', { b: 1 }], n: null })).toBe(true);
    expect(isStorableJson({ url: 'https://example.com', extra: ['ok', 'x\u0000'] })).toBe(false);
    expect(isStorableJson({ ['k\ud800']: 1 })).toBe(false);
    expect(isStorableJson(JSON.parse('{"tag":"\\ud83d"}'))).toBe(false);
  });

  it('answers for a body nested far deeper than the call stack goes', () => {
    const deep = (depth: number, leaf: string) =>
      JSON.parse('['.repeat(depth) + JSON.stringify(leaf) + ']'.repeat(depth));
    expect(isStorableJson(deep(200_000, 'fine'))).toBe(true);
    expect(isStorableJson(deep(200_000, 'x\u0000'))).toBe(false);
  });

  it('cuts text at a length without splitting a character in two', () => {
    expect(storablePrefix('ab🚀', 3)).toBe('ab');
    expect(storablePrefix('ab🚀', 4)).toBe('ab🚀');
    expect(storablePrefix('abc🚀', 3)).toBe('abc');
    expect(storablePrefix('short', 1024)).toBe('short');
    fc.assert(
      // Whole characters, emoji and other pairs among them.
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 80 }), (text, max) => {
        const cut = storablePrefix(text, max);
        expect(isStorableText(cut)).toBe(true);
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
      }),
    );
  });
});

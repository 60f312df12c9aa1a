/**
 * Text that Postgres, ClickHouse and every JSON reader can hold as it is.
 * Postgres text refuses U+0000, and a UTF-16 surrogate without its pair has
 * no UTF-8 form: either would fail a statement (and every neighbour sharing
 * it), or be silently changed on the way. Such text is refused at the edge,
 * before any I/O, and never enters an event.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what is refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `isStorableText` as a JSON Schema pattern, for the published schemas: with
 * Unicode semantics (ECMA-262's `u` flag, Python's `re`) a surrogate pair is
 * one character outside the class, so only U+0000 and a lone surrogate fail.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * The text's first `max` UTF-16 code units (the unit JavaScript counts length
 * in; the events' schema counts characters, never more), one fewer where the
 * cut would split a character in two: half of a surrogate pair (an emoji,
 * say) is text no JSON reader outside JavaScript accepts, and it would cost a
 * data team the whole record it is in.
 */
export function storablePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * True when every string in a parsed JSON value, keys included, is storable.
 * Walked with a stack of its own, not recursion: a body nested a hundred
 * thousand deep is answered like any other, without relying on the caller to
 * catch a stack overflow.
 */
export function isStorableJson(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!isStorableText(next)) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, inner] of Object.entries(next)) {
        if (!isStorableText(key)) return false;
        pending.push(inner);
      }
    }
  }
  return true;
}

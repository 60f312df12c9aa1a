/**
 * Text that Postgres, ClickHouse and every JSON reader can hold as it is.
 * Postgres text refuses U+0000, and a UTF-16 surrogate without its pair has
 * no UTF-8 form: either would fail a statement (and every neighbour sharing
 * it), or be silently changed on the way. Such text is refused at the edge,
 * before any I/O, and never enters an event.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what is refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** True when every string in a parsed JSON value, keys included, is storable. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(isStorableJson);
  for (const [key, inner] of Object.entries(value)) {
    if (!isStorableText(key) || !isStorableJson(inner)) return false;
  }
  return true;
}

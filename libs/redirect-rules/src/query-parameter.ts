/**
 * The first value of the query parameter `name` in a raw query string (`a=1&b=2`, without `?`), decoded as a form
 * (`+` is a space, `%xx` an octet of UTF-8), or undefined when it is absent. A value that does not decode is compared
 * as it came. Names are compared raw first: most are plain ASCII and need no decoding.
 */
export function queryParameter(query: string, name: string): string | undefined {
  if (query === '') return undefined;
  let at = 0;
  const end = query.length;
  // Where the next "=" is: searched again only once passed, so `a&a&a…` is read once, not once a parameter.
  let nextEquals = -1;
  while (at <= end) {
    let next = query.indexOf('&', at);
    if (next === -1) next = end;
    if (nextEquals !== end && nextEquals < at) {
      nextEquals = query.indexOf('=', at);
      if (nextEquals === -1) nextEquals = end;
    }
    const equals = nextEquals < next ? nextEquals : next;
    // Compared in place: a plain key is not copied; only one that is encoded is decoded.
    const matches =
      (equals - at === name.length && query.startsWith(name, at)) ||
      (equals > at && isEncoded(query, at, equals) && formDecode(query.slice(at, equals)) === name);
    if (matches) {
      return equals === next ? '' : formDecode(query.slice(equals + 1, next));
    }
    at = next + 1;
  }
  return undefined;
}

function isEncoded(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25 || c === 0x2b) return true;
  }
  return false;
}

function formDecode(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

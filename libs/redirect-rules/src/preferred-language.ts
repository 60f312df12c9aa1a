/**
 * The browser's preferred language: the primary subtag, in lower case, of the `Accept-Language` entry with the highest
 * q-value (the first of equals; `*` and q=0 are no preference), or '' when there is none. `pt-BR;q=0.9` is `pt`.
 * One pass without splitting: the header is the visitor's, so its length is bounded only by the 16 KiB of headers.
 */
export function preferredLanguage(header: string | undefined): string {
  if (header === undefined) return '';
  let best = '';
  let bestQ = 0;
  const end = header.length;
  let at = 0;
  // Where the next "q=" is: searched again only once passed, so a header of many entries is read once, not once each.
  let q = -1;
  while (at < end) {
    let next = header.indexOf(',', at);
    if (next === -1) next = end;
    while (at < next && header.charCodeAt(at) === 0x20) at++;
    let tagEnd = at;
    while (tagEnd < next && isLetter(header.charCodeAt(tagEnd))) tagEnd++;
    if (tagEnd > at) {
      if (q !== end && q < tagEnd) {
        q = header.indexOf('q=', tagEnd);
        if (q === -1) q = end;
      }
      const weight = q < next ? qValue(header, q + 2, next) : 1;
      if (weight > bestQ) {
        bestQ = weight;
        best = header.slice(at, tagEnd);
      }
    }
    at = next + 1;
  }
  return best.toLowerCase();
}

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** The q-value written from `from` to `to`: 0 when unreadable. */
function qValue(header: string, from: number, to: number): number {
  const value = Number(header.slice(from, to).trim());
  return value >= 0 && value <= 1 ? value : 0;
}

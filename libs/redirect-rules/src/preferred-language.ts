/**
 * The browser's preferred language: the primary subtag of the `Accept-Language` entry with the highest q-value (the
 * first of equals; `*` and q=0 are no preference), as a number (`languageCode`), or 0 when there is none. `pt-BR;q=0.9`
 * is `pt`. A number, not a string: read on the redirect thread, it allocates nothing. One pass: the header is the
 * visitor's, so its length is bounded only by the 16 KiB of headers.
 */
export function preferredLanguage(header: string | undefined): number {
  if (header === undefined) return 0;
  let best = 0;
  let bestQ = 0;
  const end = header.length;
  let at = 0;
  while (at < end) {
    let next = header.indexOf(',', at);
    if (next === -1) next = end;
    while (at < next && header.charCodeAt(at) === 0x20) at++;
    let code = 0;
    let tagEnd = at;
    for (; tagEnd < next; tagEnd++) {
      const c = header.charCodeAt(tagEnd) | 0x20;
      if (c < 0x61 || c > 0x7a) break;
      if (tagEnd - at < 3) code = code * 32 + (c - 0x60);
    }
    const length = tagEnd - at;
    // `*` names no language; a subtag of one or of 4-8 letters is one no rule can name.
    if (length > 0) {
      const q = qValue(header, tagEnd, next);
      if (q > bestQ) {
        bestQ = q;
        best = length >= 2 && length <= 3 ? code : 0;
      }
    }
    at = next + 1;
  }
  return best;
}

/** A primary subtag (2-3 letters, any case) as `preferredLanguage` answers it; 0 for anything else. */
export function languageCode(subtag: string): number {
  if (!/^[a-zA-Z]{2,3}$/.test(subtag)) return 0;
  let code = 0;
  for (let i = 0; i < subtag.length; i++) code = code * 32 + ((subtag.charCodeAt(i) | 0x20) - 0x60);
  return code;
}

/**
 * The q-value of an entry whose parameters run from `from` to `to`, in thousandths: 1000 when it names none, 0 when
 * it is unreadable. RFC 9110 writes it `0`, `1` or `0.` and up to three digits; it is read in place.
 */
function qValue(header: string, from: number, to: number): number {
  // Searched within the entry only: a header of many entries is read once, not once an entry.
  let at = from;
  for (;;) {
    while (at < to && header.charCodeAt(at) !== 0x3b) at++;
    if (at >= to) return 1000;
    at++;
    while (at < to && header.charCodeAt(at) === 0x20) at++;
    if ((header.charCodeAt(at) | 0x20) === 0x71 && header.charCodeAt(at + 1) === 0x3d) break;
  }
  at += 2;
  const whole = header.charCodeAt(at) - 0x30;
  if (whole !== 0 && whole !== 1) return 0;
  let value = whole * 1000;
  at++;
  if (at < to && header.charCodeAt(at) === 0x2e) {
    let scale = 100;
    for (at++; at < to && scale >= 1; at++, scale /= 10) {
      const digit = header.charCodeAt(at) - 0x30;
      if (digit < 0 || digit > 9) break;
      value += digit * scale;
    }
  }
  return value > 1000 ? 0 : value;
}

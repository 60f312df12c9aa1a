import type { ResolvedLink } from './link-cache';

/**
 * A cached link in as little memory as a JavaScript heap allows: one string
 * holding the link's and the account's ids as 16 raw bytes each (a UUID's
 * 36 characters are 16 bytes of information) and the Location after them.
 * With its key and LRU slot, a link cached as an object of four strings took
 * 383 bytes, packed 251 (1,000,000 links of 74-character destinations;
 * docs/performance.md, "A cold cache"). The slug is the cache's key and is
 * not repeated.
 *
 * Only canonical UUIDs (lowercase, as Postgres prints them) are packed, so
 * unpacking gives back the very same text; any other id keeps the object.
 */
export type PackedLink = string | ResolvedLink;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID_CHARS = 16;
/** Where each byte's two hex digits go in a UUID's text. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Reused by every unpack: the event loop unpacks one id at a time. */
const scratch = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A Location is printable ASCII (see redirect-location.ts): one byte a character. */
const PRINTABLE = /^[\x20-\x7e]*$/;

export function packLink(link: ResolvedLink): PackedLink {
  if (!UUID.test(link.linkId) || !UUID.test(link.accountId) || !PRINTABLE.test(link.location)) return link;
  const bytes = Buffer.allocUnsafe(2 * ID_CHARS + link.location.length);
  bytes.write(link.linkId.replaceAll('-', ''), 0, 'hex');
  bytes.write(link.accountId.replaceAll('-', ''), ID_CHARS, 'hex');
  bytes.write(link.location, 2 * ID_CHARS, 'latin1');
  // One flat string: joined with +, it would be a tree of string pieces, each an object.
  return bytes.toString('latin1');
}

export function unpackLink(slug: string, packed: PackedLink): ResolvedLink {
  if (typeof packed !== 'string') return packed;
  return {
    slug,
    linkId: unpackId(packed, 0),
    accountId: unpackId(packed, ID_CHARS),
    location: packed.slice(2 * ID_CHARS),
  };
}

function unpackId(packed: string, at: number): string {
  for (let i = 0; i < ID_CHARS; i++) {
    const byte = packed.charCodeAt(at + i);
    const to = HEX_AT[i] as number;
    scratch[to] = DIGITS[byte >> 4] as number;
    scratch[to + 1] = DIGITS[byte & 15] as number;
  }
  return scratch.toString('latin1');
}

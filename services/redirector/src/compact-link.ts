import type { CompiledRouting } from '@shortlink/redirect-rules';
import type { ResolvedLink } from './resolved-link';

/**
 * A cached link as one flat string: a length character (bit 6 set when `https://` was dropped), the slug, the link's
 * and account's ids as 16 raw bytes each, then the Location. The slug inside spares the cache's table a key string;
 * packed, a link costs about two thirds of an object of four strings. Only canonical UUIDs, a printable ASCII slug
 * under 64 characters and a printable ASCII Location are packed, so unpacking gives back the same text; anything else
 * stays an object (docs/decisions/0008-redirect-cache-packed-lru.md).
 */
export type PackedLink = string | ResolvedLink | RoutedLink;

/**
 * The third form: a link with rules or variants, its packed string and its compiled routing beside it. Links with
 * routing are few; a link without keeps the bare string, and the hot path's first test (`typeof … === 'string'`)
 * is the one it always was.
 */
export class RoutedLink {
  constructor(
    readonly packed: string,
    readonly routing: CompiledRouting,
  ) {}
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID_CHARS = 16;
const HTTPS = 'https://';
const DROPPED_HTTPS = 64;
const MAX_SLUG = 63;
/** Where each byte's two hex digits go in a UUID's text. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Reused by every unpack: the event loop unpacks one id at a time. */
const scratch = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A Location is printable ASCII (see redirect-location.ts): one byte a character. */
const PRINTABLE = /^[\x20-\x7e]*$/;

export function packLink(link: ResolvedLink): PackedLink {
  if (link.routing === undefined) return packPlain(link);
  const packed = packPlain(link);
  // Not packable: the object, which holds its routing itself.
  return typeof packed === 'string' ? new RoutedLink(packed, link.routing) : link;
}

function packPlain(link: ResolvedLink): string | ResolvedLink {
  const { slug, linkId, accountId } = link;
  if (slug.length > MAX_SLUG || !PRINTABLE.test(slug) || !PRINTABLE.test(link.location)) return link;
  if (!UUID.test(linkId) || !UUID.test(accountId)) return link;
  const https = link.location.startsWith(HTTPS);
  const location = https ? link.location.slice(HTTPS.length) : link.location;
  const bytes = Buffer.allocUnsafe(1 + slug.length + 2 * ID_CHARS + location.length);
  bytes[0] = slug.length | (https ? DROPPED_HTTPS : 0);
  let at = 1 + bytes.write(slug, 1, 'latin1');
  at += bytes.write(linkId.replaceAll('-', ''), at, 'hex');
  at += bytes.write(accountId.replaceAll('-', ''), at, 'hex');
  bytes.write(location, at, 'latin1');
  // One flat string: joined with +, it would be a tree of string pieces, each an object.
  return bytes.toString('latin1');
}

/** Whether the packed link is the one of this slug. */
export function isLinkOf(packed: PackedLink, slug: string): boolean {
  if (typeof packed !== 'string')
    return packed instanceof RoutedLink ? isLinkOf(packed.packed, slug) : packed.slug === slug;
  return (packed.charCodeAt(0) & MAX_SLUG) === slug.length && packed.startsWith(slug, 1);
}

/** The packed link's slug (a new string: for the cache's rare bookkeeping, not the hot path). */
export function slugOfPacked(packed: PackedLink): string {
  if (packed instanceof RoutedLink) return slugOfPacked(packed.packed);
  return typeof packed === 'string' ? packed.slice(1, 1 + (packed.charCodeAt(0) & MAX_SLUG)) : packed.slug;
}

export function unpackLink(slug: string, packed: PackedLink): ResolvedLink {
  if (typeof packed !== 'string') {
    return packed instanceof RoutedLink ? { ...unpackLink(slug, packed.packed), routing: packed.routing } : packed;
  }
  const head = packed.charCodeAt(0);
  const ids = 1 + (head & MAX_SLUG);
  const rest = packed.slice(ids + 2 * ID_CHARS);
  return {
    slug,
    linkId: unpackId(packed, ids),
    accountId: unpackId(packed, ids + ID_CHARS),
    location: head & DROPPED_HTTPS ? HTTPS + rest : rest,
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

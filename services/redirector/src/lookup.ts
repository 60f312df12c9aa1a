import type { Pool } from 'pg';
import { findLinkBySlug } from '@shortlink/postgres';
import type { LookupLink } from './link-cache';

const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The Location header for a destination: exactly as submitted when it is
 * printable ASCII, otherwise percent-encoded by the URL parser (spaces,
 * non-ASCII characters), which a header cannot carry raw.
 */
export function locationOf(destinationUrl: string): string | null {
  if (HEADER_SAFE.test(destinationUrl)) return destinationUrl;
  try {
    return new URL(destinationUrl).href;
  } catch {
    return null;
  }
}

/** Cache misses go to Postgres: the projection, or a committed claim it has not reached yet. */
export function postgresLookup(pool: Pool): LookupLink {
  return async (slug) => {
    const link = await findLinkBySlug(pool, slug);
    if (!link) return null;
    const location = locationOf(link.destinationUrl);
    if (location === null) return null;
    return { slug, linkId: link.linkId, accountId: link.accountId, location };
  };
}

import type { Pool } from 'pg';
import { findLinkBySlug } from '@shortlink/postgres';
import type { LookupLink } from './link-cache';
import { redirectLocation } from './redirect-location';

/**
 * Cache misses go to Postgres: the projection, or a committed claim it has not
 * reached yet. A failed query rejects (it is never taken for "not found").
 */
export function postgresLookup(pool: Pool): LookupLink {
  return async (slug) => {
    const link = await findLinkBySlug(pool, slug);
    if (!link) return null;
    const location = redirectLocation(link.destinationUrl);
    if (location === null) return null;
    return { slug, linkId: link.linkId, accountId: link.accountId, location };
  };
}

import type { Pool } from 'pg';
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

/**
 * Looks a slug up in the projection, and in the write model's committed claims:
 * a link whose 201 has been sent redirects even before the projector has caught
 * up (read-your-writes across processes).
 */
export function postgresLookup(pool: Pool): LookupLink {
  return async (slug) => {
    const { rows } = await pool.query<{ link_id: string; account_id: string; destination_url: string }>(
      `SELECT link_id, account_id, destination_url FROM links WHERE slug = $1
       UNION ALL
       SELECT link_id, account_id, destination_url FROM slug_claims WHERE slug = $1 AND state = 'committed'
       LIMIT 1`,
      [slug],
    );
    const row = rows[0];
    if (!row) return null;
    const location = locationOf(row.destination_url);
    if (location === null) return null;
    return { slug, linkId: row.link_id, accountId: row.account_id, location };
  };
}

import type { Pool } from 'pg';
import type { LookupLink } from './link-cache';

/** Turns a destination as submitted into a header-safe, absolute URL. */
export function locationOf(destinationUrl: string): string | null {
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
    return { linkId: row.link_id, accountId: row.account_id, location };
  };
}

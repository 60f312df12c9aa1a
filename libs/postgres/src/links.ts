import type { Pool } from 'pg';

export interface LinkRecord {
  linkId: string;
  accountId: string;
  destinationUrl: string;
  createdAt: Date;
}

/**
 * A link by slug, from the `links` projection or, for a link the projector has
 * not reached yet, its committed claim: what makes reads consistent with a 201
 * already sent.
 */
export async function findLinkBySlug(pool: Pool, slug: string): Promise<LinkRecord | null> {
  const { rows } = await pool.query<{ link_id: string; account_id: string; destination_url: string; created_at: Date }>(
    `SELECT link_id, account_id, destination_url, created_at FROM links WHERE slug = $1
     UNION ALL
     SELECT link_id, account_id, destination_url, created_at FROM slug_claims WHERE slug = $1 AND state = 'committed'
     LIMIT 1`,
    [slug],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    linkId: row.link_id,
    accountId: row.account_id,
    destinationUrl: row.destination_url,
    createdAt: row.created_at,
  };
}

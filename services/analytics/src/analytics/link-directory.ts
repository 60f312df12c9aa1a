import type { Pool } from 'pg';

export interface OwnedLink {
  linkId: string;
  accountId: string;
  createdAt: Date;
}

/** A link by slug, from the projection or, before the projector reaches it, the committed claim. */
export function postgresLinkDirectory(pool: Pool) {
  return async (slug: string): Promise<OwnedLink | null> => {
    const { rows } = await pool.query<{ link_id: string; account_id: string; created_at: Date }>(
      `SELECT link_id, account_id, created_at FROM links WHERE slug = $1
       UNION ALL
       SELECT link_id, account_id, created_at FROM slug_claims WHERE slug = $1 AND state = 'committed'
       LIMIT 1`,
      [slug],
    );
    const row = rows[0];
    return row ? { linkId: row.link_id, accountId: row.account_id, createdAt: row.created_at } : null;
  };
}

export type FindLink = ReturnType<typeof postgresLinkDirectory>;

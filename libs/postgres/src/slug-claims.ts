import type { Pool, PoolClient } from 'pg';
import { CHANNELS } from './channels';

/**
 * Commits a pending slug claim and, in the same statement, notifies
 * redirectors, which drop a cached "not found" for the slug. Used by the writer
 * after its append, by the projector when it sees the event, and by the claim
 * settler; whichever comes first wins, the others change nothing.
 */
export async function commitSlugClaim(db: Pool | PoolClient, slug: string, linkId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH committed AS (
       UPDATE slug_claims SET state = 'committed' WHERE slug = $1 AND link_id = $2 AND state = 'pending' RETURNING slug
     )
     SELECT pg_notify($3, slug) FROM committed`,
    [slug, linkId, CHANNELS.linkCreated],
  );
  return rowCount === 1;
}

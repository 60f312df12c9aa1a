import type { Pool, PoolClient } from 'pg';
import { CHANNELS } from './channels';

export interface ClaimRef {
  slug: string;
  linkId: string;
}

/**
 * Commits pending slug claims, then notifies redirectors, which drop a cached "not found" for each slug. The writer,
 * the projector and the claim settler all call it; the first wins, the others change and notify nothing. Returns the
 * slugs this call committed. The notify is its own statement: inside the UPDATE's transaction it holds Postgres's one
 * notify lock through the WAL flush, and every create waits for the others' flushes in turn; alone it writes no WAL.
 * Given a client in a transaction, both take effect at its commit
 * (docs/decisions/0005-group-commits-on-the-write-path.md).
 */
export async function commitSlugClaims(db: Pool | PoolClient, claims: readonly ClaimRef[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const { rows } = await db.query<{ slug: string }>(
    `UPDATE slug_claims AS s SET state = 'committed'
       FROM unnest($1::text[], $2::uuid[]) AS c(slug, link_id)
      WHERE s.slug = c.slug AND s.link_id = c.link_id AND s.state = 'pending'
     RETURNING s.slug`,
    [claims.map((c) => c.slug), claims.map((c) => c.linkId)],
  );
  const committed = rows.map((r) => r.slug);
  if (committed.length > 0) {
    await db.query('SELECT pg_notify($1, slug) FROM unnest($2::text[]) AS slug', [CHANNELS.linkCreated, committed]);
  }
  return new Set(committed);
}

/**
 * Whose claim on the slug is still pending: a create under way, or one
 * answered 201 whose claim's commit is still to land, or one whose outcome
 * nobody knows yet (the claim settler decides). null when there is none.
 */
export async function findUnsettledClaimOwner(db: Pool | PoolClient, slug: string): Promise<string | null> {
  const { rows } = await db.query<{ account_id: string }>(
    `SELECT account_id FROM slug_claims WHERE slug = $1 AND state = 'pending'`,
    [slug],
  );
  return rows[0]?.account_id ?? null;
}

export async function commitSlugClaim(db: Pool | PoolClient, slug: string, linkId: string): Promise<boolean> {
  return (await commitSlugClaims(db, [{ slug, linkId }])).has(slug);
}

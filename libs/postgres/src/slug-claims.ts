import type { Pool, PoolClient } from 'pg';
import { CHANNELS } from './channels';

export interface ClaimRef {
  slug: string;
  linkId: string;
}

/**
 * Commits pending slug claims and then notifies redirectors, which drop a
 * cached "not found" for each slug. Used by the writer after its append, by
 * the projector when it sees the event, and by the claim settler; whichever
 * comes first wins, the others change nothing and notify nobody. Returns the
 * slugs this call committed.
 *
 * The notifications are their own statement on purpose. A transaction that
 * notifies holds Postgres's one notify lock from its pre-commit to its end,
 * WAL flush included; with the notify inside the UPDATE's transaction every
 * create waited for every other create's disk flush in turn (the create
 * benchmark showed most connections waiting on that lock). A notify alone
 * writes no WAL and releases the lock at once. Given a client inside a
 * transaction, both statements still take effect together at its commit.
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

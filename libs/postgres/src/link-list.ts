import type { Pool } from 'pg';
import { linkRecord, type LinkRecord } from './links';

export interface LinkListQuery {
  accountId: string;
  /** At most this many links. */
  limit: number;
  /** Only links listed after (older than) this link of the account; see `listPosition`. */
  before?: bigint;
  /** Exact tag. */
  tag?: string;
  /** Case-insensitive substring of the slug or the destination URL, as projected (see migration 0009). */
  search?: string;
}

/**
 * Where a link of the account stands in its list, or null when the account
 * has no such listed link. A page cursor names its last link; this turns it
 * back into a position, so a cursor shows no more than the link id its holder
 * already saw. Deleted links keep their position: a cursor on a link deleted
 * since still continues where it was.
 */
export async function listPosition(pool: Pool, accountId: string, linkId: string): Promise<bigint | null> {
  const { rows } = await pool.query<{ list_seq: string }>(
    'SELECT list_seq FROM slug_claims WHERE link_id = $1 AND account_id = $2 AND list_seq IS NOT NULL',
    [linkId, accountId],
  );
  const row = rows[0];
  return row ? BigInt(row.list_seq) : null;
}

/** `%`, `_` and the escape character itself match only themselves. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * An account's links, newest first: committed claims, which exist before the
 * 201 is sent (read-your-writes), in the order of `list_seq` (their commit;
 * see migration 0008). Each filter adds its own condition, so the planner sees
 * one plain query per combination and picks its index.
 */
export async function listLinks(pool: Pool, query: LinkListQuery): Promise<LinkRecord[]> {
  const params: unknown[] = [query.accountId];
  // A deleted link leaves the list; its position still anchors a cursor (listPosition).
  const where = ['account_id = $1', 'list_seq IS NOT NULL', 'deleted_at IS NULL'];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (query.before !== undefined) where.push(`list_seq < ${param(query.before.toString())}`);
  if (query.tag !== undefined) where.push(`tag = ${param(query.tag)}`);
  if (query.search !== undefined) {
    // The trigram indexes are on the projection (migration 0009), off the create's path.
    const pattern = param(containsPattern(query.search));
    where.push(
      `link_id IN (SELECT link_id FROM links WHERE account_id = $1 AND (slug ILIKE ${pattern} OR destination_url ILIKE ${pattern}))`,
    );
  }
  const { rows } = await pool.query<{
    link_id: string;
    account_id: string;
    slug: string;
    destination_url: string;
    tag: string | null;
    created_at: Date;
    updated_at: Date | null;
    version: number;
    routing: LinkRecord['routing'];
  }>(
    `SELECT link_id, account_id, slug, destination_url, tag, created_at, updated_at, version, routing FROM slug_claims
      WHERE ${where.join(' AND ')}
      ORDER BY list_seq DESC LIMIT ${param(query.limit)}`,
    params,
  );
  return rows.map((row) => linkRecord(row.slug, row));
}

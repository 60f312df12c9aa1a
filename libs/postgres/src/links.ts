import type { Pool } from 'pg';

export interface LinkRecord {
  linkId: string;
  accountId: string;
  slug: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
}

export interface PreviewRecord {
  status: 'ready' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  occurredAt: Date;
}

/**
 * A link by slug, from the `links` projection or, for a link the projector has
 * not reached yet, its committed claim: what makes reads consistent with a 201
 * already sent.
 */
export async function findLinkBySlug(pool: Pool, slug: string): Promise<LinkRecord | null> {
  const { rows } = await pool.query<{
    link_id: string;
    account_id: string;
    destination_url: string;
    tag: string | null;
    created_at: Date;
  }>(
    `SELECT link_id, account_id, destination_url, tag, created_at FROM links WHERE slug = $1
     UNION ALL
     SELECT link_id, account_id, destination_url, tag, created_at FROM slug_claims WHERE slug = $1 AND state = 'committed'
     LIMIT 1`,
    [slug],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    linkId: row.link_id,
    accountId: row.account_id,
    slug,
    destinationUrl: row.destination_url,
    tag: row.tag,
    createdAt: row.created_at,
  };
}

/** A link's preview, or null while it is pending. */
export async function findLinkPreview(pool: Pool, linkId: string): Promise<PreviewRecord | null> {
  const { rows } = await pool.query<{
    status: 'ready' | 'failed';
    title: string | null;
    description: string | null;
    image: string | null;
    occurred_at: Date;
  }>('SELECT status, title, description, image, occurred_at FROM link_previews WHERE link_id = $1', [linkId]);
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    title: row.title,
    description: row.description,
    image: row.image,
    occurredAt: row.occurred_at,
  };
}

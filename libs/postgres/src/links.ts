import type { Pool, QueryConfig } from 'pg';
import { linkOfKey, type LinkRouting } from '@shortlink/events';

export interface LinkRecord {
  linkId: string;
  accountId: string;
  slug: string;
  /** Its branded domain; null: the installation's own. */
  domain: string | null;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
  /** When it last changed; its creation until then. */
  updatedAt: Date;
  /** 1 at creation, one more per change. */
  version: number;
  /** Its redirect rules and variants, as validated and carried in its events; null when it has none. */
  routing: LinkRouting | null;
}

export interface PreviewRecord {
  status: 'ready' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  occurredAt: Date;
  /** The destination the preview was fetched for. */
  destinationUrl: string | null;
}

/**
 * A live link by key (`linkKey`: its slug, or `hostname/slug` on a branded domain): the newest state of the `links` projection and the
 * committed claim of the write model (which a change updates at once, and
 * which holds a link the projector has not reached yet). That is what makes
 * reads consistent with a 201, 200 or 204 already sent. A deleted link is null.
 */
export async function findLinkBySlug(pool: Pool, key: string, options: ReadOptions = {}): Promise<LinkRecord | null> {
  const { rows } = await pool.query<LinkRow>(
    withReadTimeout(
      {
        // The query is in the function (migrations 0010, 0020), where its plan is kept.
        text: 'SELECT link_id, account_id, destination_url, tag, created_at, updated_at, deleted_at, version, routing FROM find_link_by_slug_v2($1)',
        values: [key],
      },
      options,
    ),
  );
  const row = rows[0];
  if (!row || row.deleted_at !== null) return null;
  return linkRecord(key, row);
}

/** A link's row as the write model's claim and the projection both hold it. */
export type LinkRow = {
  link_id: string;
  account_id: string;
  destination_url: string;
  tag: string | null;
  created_at: Date;
  updated_at: Date | null;
  deleted_at: Date | null;
  version: number;
  /** jsonb, written only from a validated routing (the write API's, a v2 event's); NULL: none. */
  routing: LinkRouting | null;
};

/**
 * Live links by key, read as `findLinkBySlug` reads one, in one round trip
 * (migrations 0013, 0020): the keys without a live link are absent from the map.
 */
export async function findLinksBySlugs(
  pool: Pool,
  slugs: readonly string[],
  options: ReadOptions = {},
): Promise<Map<string, LinkRecord>> {
  const { rows } = await pool.query<LinkRow & { slug: string }>(
    withReadTimeout(
      {
        text: 'SELECT slug, link_id, account_id, destination_url, tag, created_at, updated_at, deleted_at, version, routing FROM find_links_by_slugs_v2($1)',
        values: [slugs],
      },
      options,
    ),
  );
  const found = new Map<string, LinkRecord>();
  for (const row of rows) {
    if (row.deleted_at === null) found.set(row.slug, linkRecord(row.slug, row));
  }
  return found;
}

export interface ReadOptions {
  /**
   * Fail with pg's "Query read timeout" when no answer came within this (a
   * stalled server): the pool then drops the connection, which the answer
   * would otherwise hold until the server woke.
   */
  readTimeoutMs?: number;
}

/** `query_timeout` is pg's per-query option, which its types leave out of QueryConfig. */
export function withReadTimeout(query: QueryConfig, { readTimeoutMs }: ReadOptions): QueryConfig {
  return readTimeoutMs === undefined ? query : ({ ...query, query_timeout: readTimeoutMs } as QueryConfig);
}

/**
 * The one mapping of a link's row to a LinkRecord; `updatedAt` is its creation until a change. `key` is the row's
 * `slug` column, which holds the link's key: its slug and domain are read from it.
 */
export function linkRecord(key: string, row: Omit<LinkRow, 'deleted_at'>): LinkRecord {
  return {
    linkId: row.link_id,
    accountId: row.account_id,
    ...linkOfKey(key),
    destinationUrl: row.destination_url,
    tag: row.tag,
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
    version: row.version,
    routing: row.routing,
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
    destination_url: string | null;
  }>('SELECT status, title, description, image, occurred_at, destination_url FROM link_previews WHERE link_id = $1', [
    linkId,
  ]);
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    title: row.title,
    description: row.description,
    image: row.image,
    occurredAt: row.occurred_at,
    destinationUrl: row.destination_url,
  };
}

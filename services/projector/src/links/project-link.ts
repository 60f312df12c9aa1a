import type { Pool } from 'pg';
import type { LinkCreated } from '@shortlink/events';
import { CHANNELS } from '@shortlink/postgres';

export interface EventSource {
  partition: number;
  offset: string;
}

/**
 * Applies LinkCreated to the `links` lookup table. Idempotent: a replayed event
 * (same event id), or a second event for a slug that already has a link, changes
 * nothing, so replaying the whole topic is safe. It also commits the writer's
 * slug claim, in case the writer stopped between the append and its own commit,
 * and then tells redirectors (as `commitSlugClaims` does).
 *
 * One statement, so one round trip and its own transaction: the insert, the
 * claim's commit and the notification take effect together or not at all,
 * without a BEGIN … COMMIT conversation holding a connection (and, in the
 * embedded mode, the one PGlite session) across five round trips per event.
 */
export async function projectLinkCreated(pool: Pool, event: LinkCreated, source: EventSource): Promise<void> {
  const { linkId, accountId, slug, destinationUrl, tag } = event.data;
  await pool.query(
    `WITH projected AS (
       INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT DO NOTHING
       RETURNING slug
     ), committed AS (
       UPDATE slug_claims SET state = 'committed'
        WHERE slug = $1 AND link_id = $2 AND state = 'pending'
       RETURNING slug
     )
     SELECT pg_notify($10, slug) FROM committed`,
    [
      slug,
      linkId,
      accountId,
      destinationUrl,
      tag,
      event.occurredAt,
      event.eventId,
      source.partition,
      source.offset,
      CHANNELS.linkCreated,
    ],
  );
}

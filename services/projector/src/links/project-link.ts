import type { Pool } from 'pg';
import { domainOf, linkKey, routingOf, storedRouting, type LinkCreated } from '@shortlink/events';
import { CHANNELS } from '@shortlink/postgres';

export interface EventSource {
  partition: number;
  offset: string;
}

/**
 * Applies LinkCreated to the `links` table. Idempotent: a replayed event, or a second one for a slug that has a link,
 * changes nothing, so replaying the topic is safe. It also commits the writer's slug claim (in case the writer stopped
 * between its append and its commit) and notifies redirectors, as `commitSlugClaims` does. One statement, so the three
 * take effect together without a BEGIN … COMMIT holding a connection (or the embedded PGlite session) for five round
 * trips an event.
 */
export async function projectLinkCreated(pool: Pool, event: LinkCreated, source: EventSource): Promise<void> {
  const { linkId, accountId, slug, destinationUrl, tag } = event.data;
  // The store's key: the slug, and the domain when the link is on one (a slug is unique per domain).
  const key = linkKey(domainOf(event.data), slug);
  await pool.query(
    `WITH projected AS (
       INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset, routing)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11)
       ON CONFLICT DO NOTHING
       RETURNING slug
     ), committed AS (
       UPDATE slug_claims SET state = 'committed'
        WHERE slug = $1 AND link_id = $2 AND state = 'pending'
       RETURNING slug
     )
     SELECT pg_notify($10, slug) FROM committed`,
    [
      key,
      linkId,
      accountId,
      destinationUrl,
      tag,
      event.occurredAt,
      event.eventId,
      source.partition,
      source.offset,
      CHANNELS.linkCreated,
      storedRouting(routingOf(event.data)),
    ],
  );
}

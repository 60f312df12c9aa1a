import type { Pool } from 'pg';
import { domainOf, linkKey, routingOf, storedRouting, type LinkDeleted, type LinkUpdated } from '@shortlink/events';
import type { EventSource } from './project-link';

/**
 * Applies LinkUpdated / LinkDeleted to the `links` table, by version: an event no newer than the row (a replay, a
 * second copy from the outbox relay) changes nothing, so the projection never goes back. A deleted link keeps its row
 * (its clicks still name it), marked `deleted_at`; lookups treat it as gone. Nothing is notified: the write API already
 * told the redirectors.
 */
export async function projectLinkChange(pool: Pool, event: LinkUpdated | LinkDeleted, source: EventSource) {
  const { slug, linkId, version } = event.data;
  const updated = event.type === 'LinkUpdated' ? event.data : null;
  await pool.query(
    `UPDATE links SET
       destination_url = COALESCE($4, destination_url),
       tag = CASE WHEN $5 THEN $6 ELSE tag END,
       routing = CASE WHEN $12 THEN $13::jsonb ELSE routing END,
       updated_at = $7,
       deleted_at = CASE WHEN $8 THEN $7::timestamptz ELSE deleted_at END,
       version = $3, event_id = $9, source_partition = $10, source_offset = $11
     WHERE slug = $1 AND link_id = $2 AND version < $3`,
    [
      linkKey(domainOf(event.data), slug),
      linkId,
      version,
      updated?.destinationUrl ?? null,
      updated !== null,
      updated?.tag ?? null,
      event.occurredAt,
      event.type === 'LinkDeleted',
      event.eventId,
      source.partition,
      source.offset,
      // A version 1 update predates routing and leaves it as it is.
      updated !== null && 'rules' in updated,
      updated === null ? null : storedRouting(routingOf(updated)),
    ],
  );
}

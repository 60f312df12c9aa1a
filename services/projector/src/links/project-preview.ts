import type { Pool } from 'pg';
import type { LinkPreviewFailed, LinkPreviewFetched } from '@shortlink/events';

/**
 * Applies a preview outcome to `link_previews`. Idempotent and order-safe: an
 * outcome for an older state of the link (`linkVersion`), or for the same one
 * but older than (or the same as) the stored one, changes nothing, so a
 * replay, or a late retry's outcome, never overwrites a newer preview.
 * Outcomes from before previews named their destination are for the link's
 * creation: the destination the `links` row holds when they are applied.
 */
export async function projectLinkPreview(pool: Pool, event: LinkPreviewFetched | LinkPreviewFailed): Promise<void> {
  const ready = event.type === 'LinkPreviewFetched';
  await pool.query(
    `INSERT INTO link_previews (link_id, status, title, description, image, final_url, reason, occurred_at, event_id,
                                link_version, destination_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
             COALESCE($11, (SELECT destination_url FROM links WHERE link_id = $1)))
     ON CONFLICT (link_id) DO UPDATE SET
       status = EXCLUDED.status, title = EXCLUDED.title, description = EXCLUDED.description,
       image = EXCLUDED.image, final_url = EXCLUDED.final_url, reason = EXCLUDED.reason,
       occurred_at = EXCLUDED.occurred_at, event_id = EXCLUDED.event_id,
       link_version = EXCLUDED.link_version, destination_url = EXCLUDED.destination_url
     WHERE (link_previews.link_version, link_previews.occurred_at) < (EXCLUDED.link_version, EXCLUDED.occurred_at)`,
    [
      event.data.linkId,
      ready ? 'ready' : 'failed',
      ready ? event.data.title : null,
      ready ? event.data.description : null,
      ready ? event.data.image : null,
      ready ? event.data.finalUrl : null,
      ready ? null : event.data.reason,
      event.occurredAt,
      event.eventId,
      event.data.linkVersion ?? 1,
      event.data.destinationUrl ?? null,
    ],
  );
}

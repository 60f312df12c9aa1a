import type { Pool } from 'pg';
import type { LinkPreviewFailed, LinkPreviewFetched } from '@shortlink/events';

/**
 * Applies a preview outcome to `link_previews`. Idempotent and order-safe: an
 * event older than (or the same as) the stored one changes nothing, so a
 * replay, or a late retry's outcome, never overwrites a newer preview.
 */
export async function projectLinkPreview(pool: Pool, event: LinkPreviewFetched | LinkPreviewFailed): Promise<void> {
  const ready = event.type === 'LinkPreviewFetched';
  await pool.query(
    `INSERT INTO link_previews (link_id, status, title, description, image, final_url, reason, occurred_at, event_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (link_id) DO UPDATE SET
       status = EXCLUDED.status, title = EXCLUDED.title, description = EXCLUDED.description,
       image = EXCLUDED.image, final_url = EXCLUDED.final_url, reason = EXCLUDED.reason,
       occurred_at = EXCLUDED.occurred_at, event_id = EXCLUDED.event_id
     WHERE link_previews.occurred_at < EXCLUDED.occurred_at`,
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
    ],
  );
}

import type { Pool } from 'pg';
import type { LinkCreated } from '@shortlink/events';
import { commitSlugClaim } from '@shortlink/postgres';

export interface EventSource {
  partition: number;
  offset: string;
}

/**
 * Applies LinkCreated to the `links` lookup table. Idempotent: a replayed event
 * (same event id), or a second event for a slug that already has a link, changes
 * nothing, so replaying the whole topic is safe. It also commits the writer's
 * slug claim, in case the writer stopped between the append and its own commit.
 */
export async function projectLinkCreated(pool: Pool, event: LinkCreated, source: EventSource): Promise<void> {
  const { linkId, accountId, slug, destinationUrl, tag } = event.data;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT DO NOTHING`,
      [slug, linkId, accountId, destinationUrl, tag, event.occurredAt, event.eventId, source.partition, source.offset],
    );
    await commitSlugClaim(client, slug, linkId);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

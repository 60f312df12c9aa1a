import type { Pool } from 'pg';
import { decodeEvent, linkEvent } from '@shortlink/events';
import type { AppendLinkEvent, LinkWriteEvent } from './link-created-appender';

export interface RelayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Appends the link changes left in the outbox: committed in Postgres, but the
 * writer's append failed or the writer stopped before it was confirmed. An
 * event may so reach the topic twice; every consumer applies a link's events
 * by version, so the second copy changes nothing. The relay sends a link's
 * events in version order, one at a time, and each leaves the outbox once
 * confirmed; a writer's own append of a later version can still land before
 * them (README, "Events").
 */
export function createOutboxRelay(options: {
  pool: Pool;
  append: AppendLinkEvent;
  /** A younger entry may still have its writer's append in flight. */
  staleAfterMs: number;
  logger: RelayLogger;
}) {
  const { pool, append, logger } = options;
  return async function relayOutbox(): Promise<number> {
    const { rows } = await pool.query<{ event_id: string; event: string }>(
      `SELECT event_id, event FROM link_change_outbox
        WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY slug, version LIMIT 500`,
      [options.staleAfterMs],
    );
    let relayed = 0;
    for (const row of rows) {
      const decoded = decodeEvent(linkEvent, row.event);
      if (!decoded.ok || !isWriteEvent(decoded.event)) {
        logger.warn({ eventId: row.event_id }, 'outbox entry is not a link change; left in place');
        continue;
      }
      await append(decoded.event);
      await pool.query('DELETE FROM link_change_outbox WHERE event_id = $1', [row.event_id]);
      relayed++;
    }
    if (relayed > 0) logger.info({ relayed }, 'relayed link changes from the outbox');
    return relayed;
  };
}

function isWriteEvent(event: { type: string }): event is LinkWriteEvent {
  return event.type === 'LinkUpdated' || event.type === 'LinkDeleted';
}

import type { Pool } from 'pg';
import type { AppendLinkEvent } from './link-created-appender';
import type { LinkChangeStore } from './link-change-store';

export interface RelayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Appends the link changes left in the outbox: committed in Postgres, but the
 * writer's append failed or the writer stopped before it was confirmed. An
 * event may so reach the topic twice; every consumer applies a link's events
 * by version, so the second copy changes nothing. Each link's events go as
 * its writers' do (`LinkChangeStore.publish`): in version order, the link
 * locked, so a writer's own append can never overtake them.
 */
export function createOutboxRelay(options: {
  pool: Pool;
  publish: LinkChangeStore['publish'];
  append: AppendLinkEvent;
  /** A younger entry may still have its writer's append in flight. */
  staleAfterMs: number;
  logger: RelayLogger;
}) {
  const { pool, publish, append, logger } = options;
  return async function relayOutbox(): Promise<number> {
    const { rows } = await pool.query<{ slug: string }>(
      `SELECT DISTINCT slug FROM link_change_outbox
        WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY slug LIMIT 500`,
      [options.staleAfterMs],
    );
    let relayed = 0;
    for (const { slug } of rows) {
      try {
        relayed += await publish(slug, append);
      } catch (err) {
        logger.warn({ err, slug }, 'a link change stays in the outbox');
      }
    }
    if (relayed > 0) logger.info({ relayed }, 'relayed link changes from the outbox');
    return relayed;
  };
}

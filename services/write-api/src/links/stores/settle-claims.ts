import type { LogAdmin } from '@shortlink/event-log';
import type { Pool } from 'pg';
import { waitForGroupToCatchUp } from '@shortlink/event-log';
import { commitSlugClaim } from '@shortlink/postgres';

export interface SettleLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ClaimSettlerOptions {
  pool: Pool;
  admin: LogAdmin;
  linksTopic: string;
  linkProjectorGroup: string;
  /** A pending claim older than this has no live request behind it any more. */
  staleAfterMs: number;
  /** How long to wait for the projector to catch up before leaving a claim for next time. */
  catchUpTimeoutMs: number;
  logger: SettleLogger;
}

export interface SettleOutcome {
  committed: string[];
  released: string[];
  undecided: string[];
}

/**
 * Settles pending claims nobody will finish: the writer crashed between claim
 * and append, or its append failed in a way that leaves it unknown whether the
 * broker wrote the event. The truth is the links topic. Once the link projector
 * has consumed everything the topic held at the start of the check, the
 * projection is that truth: a claim whose link is there is committed, and a
 * claim whose link is not was never appended, so its slug is freed.
 */
export function createClaimSettler(options: ClaimSettlerOptions) {
  const { pool, admin, linksTopic, linkProjectorGroup, logger } = options;

  return async function settleStaleClaims(): Promise<SettleOutcome> {
    const outcome: SettleOutcome = { committed: [], released: [], undecided: [] };
    const { rows } = await pool.query<{ slug: string; link_id: string }>(
      `SELECT slug, link_id FROM slug_claims
        WHERE state = 'pending' AND claimed_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY claimed_at LIMIT 500`,
      [options.staleAfterMs],
    );
    if (rows.length === 0) return outcome;
    if (!(await waitForGroupToCatchUp(admin, linkProjectorGroup, linksTopic, options.catchUpTimeoutMs))) {
      outcome.undecided = rows.map((r) => r.slug);
      logger.warn({ claims: rows.length }, 'link projector is behind; stale slug claims left for the next pass');
      return outcome;
    }
    for (const { slug, link_id: linkId } of rows) {
      const { rowCount } = await pool.query('SELECT 1 FROM links WHERE link_id = $1', [linkId]);
      if (rowCount === 1) {
        await commitSlugClaim(pool, slug, linkId);
        outcome.committed.push(slug);
      } else {
        // Still stale: a retry of its request that found it meanwhile dated it anew and is finishing it.
        const { rowCount: released } = await pool.query(
          `DELETE FROM slug_claims WHERE slug = $1 AND link_id = $2 AND state = 'pending'
              AND claimed_at < now() - make_interval(secs => $3::double precision / 1000)`,
          [slug, linkId, options.staleAfterMs],
        );
        (released === 1 ? outcome.released : outcome.undecided).push(slug);
      }
    }
    logger.info(
      { committed: outcome.committed.length, released: outcome.released.length },
      'settled stale slug claims',
    );
    return outcome;
  };
}

export type SettleStaleClaims = ReturnType<typeof createClaimSettler>;

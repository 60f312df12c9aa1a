import type { Pool } from 'pg';
import { decodeEvent, encodeEvent, linkEvent } from '@shortlink/events';
import {
  CHANNELS,
  inTransaction,
  linkChangedPayload,
  linkRecord,
  type LinkRow,
  type Statements,
  type TransactionOptions,
} from '@shortlink/postgres';
import type { LinkDecision, LinkState } from '../rules/decide-link-change';
import type { AppendLinkEvent, LinkWriteEvent } from './link-created-appender';

/**
 * The write model's side of a link change: the claim row (`slug_claims`) holds
 * the link's current state, so a change is one transaction on it.
 */
export interface LinkChangeStore {
  /**
   * Locks the link, asks `decide` what to do with its current state and, for
   * a change, writes the new state, the event to the outbox and a `linkChanged`
   * notification in one transaction: redirects and reads see the change the
   * moment it commits, and every listening redirector is told in that commit.
   */
  change(
    slug: string,
    decide: (current: LinkState | null) => LinkDecision,
    options?: ChangeOptions,
  ): Promise<LinkDecision>;
  /**
   * Appends the link's events waiting in the outbox, in version order, each
   * leaving the outbox once the log took it, with the link locked throughout:
   * its next change commits only after, so a link's events reach the topic in
   * version order, whichever process changed it. Resolves with how many went.
   */
  publish(slug: string, append: AppendLinkEvent): Promise<number>;
}

export interface ChangeOptions {
  /** Whose change it is, for its account's share of the process (serializedLinkChanges); the store itself does not need it. */
  accountId?: string;
  /** When (`Date.now()`) its COMMIT must be sent at the latest (see inTransaction); serializedLinkChanges sets it from the change's arrival. */
  commitBy?: number;
}

type ClaimRow = LinkRow & { live: boolean };

/** `bounds`: how long each statement may go unanswered (a stalled Postgres); see inTransaction. */
export function postgresLinkChangeStore(pool: Pool, bounds: TransactionOptions = {}): LinkChangeStore {
  const transaction = <T>(work: (client: Statements) => Promise<T>, commitBy?: number) =>
    inTransaction(pool, work, { ...bounds, commitBy });
  return {
    change(slug, decide, { commitBy } = {}) {
      return transaction(async (client) => {
        // A claim still pending whose LinkCreated the projector has already
        // applied is a link (its 201 was sent; only the writer's commit was lost).
        const { rows } = await client.query<ClaimRow>(
          `SELECT link_id, account_id, destination_url, tag, created_at, updated_at, deleted_at, version, routing,
                  (state = 'committed' OR EXISTS (SELECT 1 FROM links l WHERE l.link_id = c.link_id)) AS live
             FROM slug_claims c WHERE slug = $1 FOR UPDATE`,
          [slug],
        );
        const row = rows[0];
        const decision = decide(row === undefined ? null : stateOf(slug, row));
        if (decision.kind === 'changed') {
          const { state, event } = decision;
          // Checked here, before anything is written: the outbox must only ever hold events the log accepts.
          linkEvent.parse(event);
          await client.query(
            `WITH changed AS (
               UPDATE slug_claims SET destination_url = $2, tag = $3, updated_at = $4, deleted_at = $5,
                                      version = $6, routing = $11, state = 'committed'
                WHERE slug = $1
             ), queued AS (
               INSERT INTO link_change_outbox (event_id, slug, version, event) VALUES ($7, $1, $6, $8)
             )
             SELECT pg_notify($9, $10)`,
            [
              slug,
              state.destinationUrl,
              state.tag,
              state.updatedAt,
              state.deletedAt,
              state.version,
              event.eventId,
              encodeEvent(event).toString('utf8'),
              CHANNELS.linkChanged,
              linkChangedPayload(event.eventId, slug),
              state.routing,
            ],
          );
        }
        return decision;
      }, commitBy);
    },
    publish(slug, append) {
      return transaction(async (client) => {
        await client.query('SELECT 1 FROM slug_claims WHERE slug = $1 FOR UPDATE', [slug]);
        const { rows } = await client.query<{ event_id: string; event: string }>(
          'SELECT event_id, event FROM link_change_outbox WHERE slug = $1 ORDER BY version',
          [slug],
        );
        let published = 0;
        for (const row of rows) {
          const decoded = decodeEvent(linkEvent, row.event);
          // Only what `change` checked ever enters the outbox; anything else stays, in place, for a person.
          if (!decoded.ok || !isWriteEvent(decoded.event))
            throw new Error(`outbox entry ${row.event_id} is not a link change`);
          await append(decoded.event);
          await client.query('DELETE FROM link_change_outbox WHERE event_id = $1', [row.event_id]);
          published++;
        }
        return published;
      });
    },
  };
}

/** The link's record, with what only the write model keeps: when it was deleted, whether it has settled. */
function stateOf(slug: string, row: ClaimRow): LinkState {
  return {
    ...linkRecord(slug, row),
    // null until its first change, as the write model holds it.
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    ...(row.live ? {} : { unsettled: true }),
  };
}

function isWriteEvent(event: { type: string }): event is LinkWriteEvent {
  return event.type === 'LinkUpdated' || event.type === 'LinkDeleted';
}

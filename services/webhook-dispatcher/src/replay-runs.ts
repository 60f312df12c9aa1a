import type { WebhookEventType } from '@shortlink/webhooks';
import type { Queryable } from './delivery-queue';
import type { WebhookMessage } from './webhook-message';

/** A replay as a dispatcher runs it: the endpoint, its account, and the window and types asked. */
export interface ClaimedReplay {
  replayId: string;
  webhookId: string;
  accountId: string;
  since: Date;
  until: Date | null;
  events: WebhookEventType[];
}

/**
 * Takes the oldest unfinished replay that no live dispatcher holds, leased
 * for `leaseMs`: one statement, so the row lock of `FOR UPDATE SKIP LOCKED`
 * lasts only as long as the claim, and the lease keeps it afterwards. Null
 * when there is none.
 */
export async function claimReplay(db: Queryable, leaseMs: number): Promise<ClaimedReplay | null> {
  const { rows } = await db.query<{
    replay_id: string;
    webhook_id: string;
    account_id: string;
    since: Date;
    until: Date | null;
    events: WebhookEventType[];
  }>(
    `WITH next AS (
       SELECT replay_id FROM webhook_replays
        WHERE finished_at IS NULL AND (lease_until IS NULL OR lease_until < now())
        ORDER BY requested_at
        LIMIT 1
          FOR UPDATE SKIP LOCKED
     )
     UPDATE webhook_replays r
        SET started_at = coalesce(r.started_at, now()),
            lease_until = now() + make_interval(secs => $1::double precision / 1000)
       FROM next, webhooks w
      WHERE r.replay_id = next.replay_id AND w.webhook_id = r.webhook_id
     RETURNING r.replay_id, r.webhook_id, w.account_id, r.since, r.until, r.events`,
    [leaseMs],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    replayId: row.replay_id,
    webhookId: row.webhook_id,
    accountId: row.account_id,
    since: row.since,
    until: row.until,
    events: row.events,
  };
}

/** Moves the replay's lease ahead; false when the replay is gone (its webhook deleted) or finished. */
export async function renewReplayLease(db: Queryable, replayId: string, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_replays SET lease_until = now() + make_interval(secs => $2::double precision / 1000)
      WHERE replay_id = $1 AND finished_at IS NULL`,
    [replayId, leaseMs],
  );
  return (rowCount ?? 0) > 0;
}

/** Marks the replay done: everything it matched is queued. */
export async function finishReplay(db: Queryable, replayId: string): Promise<void> {
  await db.query(`UPDATE webhook_replays SET finished_at = now(), lease_until = NULL WHERE replay_id = $1`, [replayId]);
}

/** Gives a replay up before its lease ends (a failed or stopped run): the next poll of any dispatcher takes it. */
export async function releaseReplay(db: Queryable, replayId: string): Promise<void> {
  await db.query(`UPDATE webhook_replays SET lease_until = NULL WHERE replay_id = $1 AND finished_at IS NULL`, [
    replayId,
  ]);
}

/**
 * Queues a replay's messages for its one endpoint, in the order given, each
 * with the replay's id. A message this replay already queued (a run taken
 * over or started again) is skipped by the unique index per replay. Returns
 * the rows added.
 */
export async function enqueueReplayDeliveries(
  db: Queryable,
  replay: Pick<ClaimedReplay, 'replayId' | 'webhookId'>,
  messages: readonly Pick<WebhookMessage, 'messageId' | 'type' | 'orderingKey' | 'payload'>[],
): Promise<number> {
  if (messages.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, ordering_key, payload, replay_id)
     SELECT $1, m.message_id, m.event_type, m.ordering_key, m.payload, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
            AS m(message_id, event_type, ordering_key, payload, i)
      ORDER BY m.i
     ON CONFLICT (webhook_id, message_id, replay_id) WHERE replay_id IS NOT NULL DO NOTHING`,
    [
      replay.webhookId,
      replay.replayId,
      messages.map((m) => m.messageId),
      messages.map((m) => m.type),
      messages.map((m) => m.orderingKey),
      messages.map((m) => m.payload),
    ],
  );
  return rowCount ?? 0;
}

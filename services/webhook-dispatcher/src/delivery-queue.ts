import type { Pool, PoolClient } from 'pg';
import type { WebhookMessage } from './webhook-message';

/** A pool or one of its clients: every query function here is one statement, one round trip. */
export type Queryable = Pick<Pool | PoolClient, 'query'>;

/** A message and the endpoints it is queued for. */
export interface Enqueued {
  message: Pick<WebhookMessage, 'messageId' | 'type' | 'orderingKey' | 'payload'>;
  webhookIds: readonly string[];
}

/**
 * Queues messages for their endpoints in one statement, in the order given
 * (a link's line follows it). A message already queued for an endpoint (the
 * event read twice) is skipped by the unique index. Returns the rows added.
 */
export async function enqueueDeliveries(db: Queryable, items: readonly Enqueued[]): Promise<number> {
  const messages = items.filter((item) => item.webhookIds.length > 0);
  if (messages.length === 0) return 0;
  // Each payload crosses the wire once, however many endpoints it goes to.
  const which: number[] = [];
  const hooks: string[] = [];
  messages.forEach((item, i) => {
    for (const id of item.webhookIds) {
      which.push(i + 1);
      hooks.push(id);
    }
  });
  const payloads = packedTexts(messages.map((m) => m.message.payload));
  const { rowCount } = await db.query(
    `WITH m AS MATERIALIZED (
       SELECT u.i, u.message_id, u.event_type, u.ordering_key,
              convert_from(substring($6::bytea FROM u.start FOR u.len), 'UTF8') AS payload
         FROM unnest($3::text[], $4::text[], $5::text[], $7::int[], $8::int[]) WITH ORDINALITY
              AS u(message_id, event_type, ordering_key, start, len, i)
     )
     INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, ordering_key, payload)
     SELECT t.webhook_id, m.message_id, m.event_type, m.ordering_key, m.payload
       FROM unnest($1::int[], $2::uuid[]) WITH ORDINALITY AS t(message, webhook_id, n)
       JOIN m ON m.i = t.message
      ORDER BY t.n
     ON CONFLICT (webhook_id, message_id) WHERE replay_id IS NULL DO NOTHING`,
    [
      which,
      hooks,
      messages.map((m) => m.message.messageId),
      messages.map((m) => m.message.type),
      messages.map((m) => m.message.orderingKey),
      payloads.bytes,
      payloads.starts,
      payloads.lengths,
    ],
  );
  return rowCount ?? 0;
}

/**
 * Texts as one binary parameter, each found by its byte position (1-based)
 * and length. A `text[]` parameter is sent as an array literal, every quote
 * of every JSON payload escaped into a new string and the whole flattened to
 * be measured: the largest cost of the dispatcher's thread at load (its V8
 * profile), and a quarter of its garbage. Postgres still checks the UTF-8.
 */
export function packedTexts(texts: readonly string[]): { bytes: Buffer; starts: number[]; lengths: number[] } {
  const lengths = texts.map((text) => Buffer.byteLength(text, 'utf8'));
  const bytes = Buffer.allocUnsafe(lengths.reduce((sum, n) => sum + n, 0));
  const starts: number[] = [];
  let at = 0;
  for (const text of texts) {
    starts.push(at + 1);
    at += bytes.write(text, at, 'utf8');
  }
  return { bytes, starts, lengths };
}

/** A message taken from the queue for one attempt, with what the attempt needs of its endpoint. */
export interface ClaimedDelivery {
  deliveryId: string;
  webhookId: string;
  url: string;
  messageId: string;
  eventType: string;
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  queuedAt: Date;
  failingSince: Date | null;
  replay: boolean;
  /** The replay it belongs to (sent as the `webhook-replay` header), or null for a live message. */
  replayId: string | null;
}

export interface ClaimOptions {
  /** Attempts in flight to one endpoint, at most. */
  perEndpoint: number;
  /** Messages claimed in all, at most. */
  limit: number;
  /** The endpoints with attempts of this process in flight, and how many: their free slots are fewer. */
  inFlight: ReadonlyMap<string, number>;
  /** A claimed message is not claimed again for this long (an attempt lasts 10 s at most). */
  leaseMs: number;
}

/**
 * Takes the due messages of enabled endpoints, at most `perEndpoint` less
 * those in flight for each, and of each link only the head of its line: a
 * message waits while an earlier one of its link is queued for its endpoint.
 * Endpoints take turns (first messages first). A claim is a lease: the
 * message's next attempt moves `leaseMs` ahead, so no other dispatcher sends
 * it meanwhile, and a dispatcher that dies loses nothing.
 */
export async function claimDueDeliveries(db: Queryable, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const busy = [...options.inFlight].filter(([, n]) => n > 0);
  const { rows } = await db.query<{
    delivery_id: string;
    webhook_id: string;
    url: string;
    message_id: string;
    event_type: string;
    payload: string;
    attempts: number;
    created_at: Date;
    failing_since: Date | null;
    replay_id: string | null;
  }>(
    `WITH busy AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS b(webhook_id, in_flight)),
     picked AS (
       SELECT c.delivery_id
         FROM webhooks w
         LEFT JOIN busy b ON b.webhook_id = w.webhook_id
         CROSS JOIN LATERAL (
           SELECT d.delivery_id, d.next_attempt_at,
                  row_number() OVER (ORDER BY d.next_attempt_at, d.delivery_id) AS turn
             FROM webhook_deliveries d
            WHERE d.webhook_id = w.webhook_id AND d.next_attempt_at <= now()
              -- The head of its link's line: one index probe (the line's first id), not a search of the line.
              AND (d.ordering_key IS NULL OR d.delivery_id = (
                SELECT min(e.delivery_id) FROM webhook_deliveries e
                 WHERE e.webhook_id = d.webhook_id AND e.ordering_key = d.ordering_key))
            ORDER BY d.next_attempt_at, d.delivery_id
            LIMIT greatest(0, $3 - coalesce(b.in_flight, 0))
         ) c
        WHERE w.enabled AND coalesce(b.in_flight, 0) < $3
        ORDER BY c.turn, c.next_attempt_at
        LIMIT $4
     )
     UPDATE webhook_deliveries d
        SET next_attempt_at = now() + make_interval(secs => $5::double precision / 1000)
       FROM picked, webhooks w
      WHERE d.delivery_id = picked.delivery_id AND w.webhook_id = d.webhook_id
        -- Another dispatcher's claim of the same row, committed first, moved it ahead: skipped.
        AND d.next_attempt_at <= now()
     RETURNING d.delivery_id::text, d.webhook_id, w.url, d.message_id, d.event_type, d.payload, d.attempts,
               d.created_at, w.failing_since, d.replay_id`,
    [busy.map(([id]) => id), busy.map(([, n]) => n), options.perEndpoint, options.limit, options.leaseMs],
  );
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    webhookId: r.webhook_id,
    url: r.url,
    messageId: r.message_id,
    eventType: r.event_type,
    payload: r.payload,
    attempts: r.attempts,
    queuedAt: r.created_at,
    failingSince: r.failing_since,
    replay: r.replay_id !== null,
    replayId: r.replay_id,
  }));
}

/** One attempt as the attempt log keeps it. */
export interface AttemptRecord {
  webhookId: string;
  messageId: string;
  eventType: string;
  /** 1 for the first attempt. */
  attempt: number;
  replay: boolean;
  attemptedAt: Date;
  status: number | null;
  /** Why there was no status, or an excerpt of the answer. */
  error: string | null;
  latencyMs: number;
}

/** What an endpoint's attempts came to: its failing time, and whether it is disabled and why. */
export interface EndpointChange {
  webhookId: string;
  /** Null after a success; an earlier failing time already stored is kept. */
  failingSince: Date | null;
  disable: 'gone' | 'failing' | null;
}

/** The outcomes of a round of attempts, written together. */
export interface Outcomes {
  /** Delivered, or given up: they leave the queue. */
  remove: readonly string[];
  /** Tried again at the time given (their attempt counted). */
  reschedule: readonly { deliveryId: string; at: Date }[];
  attempts: readonly AttemptRecord[];
  endpoints: readonly EndpointChange[];
}

/**
 * Writes a round's outcomes in one statement: delivered and given-up messages
 * leave the queue, failed ones are rescheduled, every attempt is logged, and
 * each endpoint's failing time and disabling are set. An endpoint disabled
 * by its owner keeps the owner's reason.
 */
export async function recordOutcomes(db: Queryable, outcomes: Outcomes): Promise<void> {
  const { remove, reschedule, attempts, endpoints } = outcomes;
  if (remove.length + reschedule.length + attempts.length + endpoints.length === 0) return;
  await db.query(
    `WITH removed AS (
       DELETE FROM webhook_deliveries WHERE delivery_id = ANY($1::bigint[])
     ),
     rescheduled AS (
       UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = r.at
         FROM unnest($2::bigint[], $3::timestamptz[]) AS r(delivery_id, at)
        WHERE d.delivery_id = r.delivery_id
     ),
     logged AS (
       INSERT INTO webhook_attempts
              (webhook_id, message_id, event_type, attempt, replay, attempted_at, response_status, error, latency_ms)
       SELECT * FROM unnest($4::uuid[], $5::text[], $6::text[], $7::int[], $8::bool[], $9::timestamptz[],
                            $10::smallint[], $11::text[], $12::int[])
     )
     UPDATE webhooks w
        SET failing_since = CASE WHEN h.failing_since IS NULL THEN NULL
                                 ELSE coalesce(w.failing_since, h.failing_since) END,
            enabled = w.enabled AND h.disable IS NULL,
            disabled_reason = CASE WHEN w.enabled AND h.disable IS NOT NULL THEN h.disable ELSE w.disabled_reason END,
            disabled_at = CASE WHEN w.enabled AND h.disable IS NOT NULL THEN now() ELSE w.disabled_at END,
            updated_at = CASE WHEN w.enabled AND h.disable IS NOT NULL THEN now() ELSE w.updated_at END
       FROM unnest($13::uuid[], $14::timestamptz[], $15::text[]) AS h(webhook_id, failing_since, disable)
      WHERE w.webhook_id = h.webhook_id
        -- Only an endpoint whose state changes is written: a healthy endpoint's every round would leave a dead row
        -- version behind, and the claim reads this table each time.
        AND ((w.enabled AND h.disable IS NOT NULL)
             OR (h.failing_since IS NULL) <> (w.failing_since IS NULL))`,
    [
      remove,
      reschedule.map((r) => r.deliveryId),
      reschedule.map((r) => r.at),
      attempts.map((a) => a.webhookId),
      attempts.map((a) => a.messageId),
      attempts.map((a) => a.eventType),
      attempts.map((a) => a.attempt),
      attempts.map((a) => a.replay),
      attempts.map((a) => a.attemptedAt),
      attempts.map((a) => a.status),
      attempts.map((a) => a.error),
      attempts.map((a) => a.latencyMs),
      endpoints.map((e) => e.webhookId),
      endpoints.map((e) => e.failingSince),
      endpoints.map((e) => e.disable),
    ],
  );
}

/** Gives claimed messages back, due now (a dispatcher stopping before it tried them). */
export async function releaseDeliveries(db: Queryable, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE delivery_id = ANY($1::bigint[])`, [
    deliveryIds,
  ]);
}

/** The attempt log is kept 7 days. */
export const ATTEMPT_RETENTION_MS = 7 * 24 * 3_600_000;

/** Deletes at most `batch` attempts older than the retention, oldest first; returns how many went. */
export async function purgeAttempts(
  db: Queryable,
  batch = 10_000,
  retentionMs = ATTEMPT_RETENTION_MS,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_attempts WHERE attempt_id IN (
       SELECT attempt_id FROM webhook_attempts
        WHERE attempted_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY attempted_at LIMIT $2)`,
    [retentionMs, batch],
  );
  return rowCount ?? 0;
}

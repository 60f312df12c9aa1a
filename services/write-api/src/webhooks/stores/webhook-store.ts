import type { Pool } from 'pg';
import { inTransaction } from '@shortlink/postgres';
import type { WebhookEventType, WebhookMessageType, WebhookRow } from '@shortlink/webhooks';
import type { WebhookChanges } from '../rules/webhook-body';
import type { PageRequest } from '../rules/page-request';
import type { WebhookPosition } from '../rules/page-cursors';

/** A webhook as stored, with its place in its account's list. */
export interface StoredWebhook extends WebhookRow {
  createdAtMicros: bigint;
}

export interface StoredAttempt {
  attemptId: bigint;
  messageId: string;
  eventType: WebhookMessageType;
  attempt: number;
  replay: boolean;
  attemptedAt: Date;
  responseStatus: number | null;
  error: string | null;
  latencyMs: number;
}

export interface NewWebhookRecord {
  webhookId: string;
  accountId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: Date;
}

export interface QueuedMessage {
  messageId: string;
  eventType: WebhookMessageType;
  payload: string;
}

export interface ReplayRecord {
  replayId: string;
  since: Date;
  until: Date | null;
  events: WebhookEventType[];
  requestedAt: Date;
}

/**
 * The tables `webhooks`, `webhook_secrets`, `webhook_deliveries` (the test
 * message), `webhook_attempts` and `webhook_replays` (migration 0015), as the
 * write API uses them. Every read and change of a webhook names its account:
 * another account's webhook is not there.
 */
export interface WebhookStore {
  /** The webhook and its first sealed secret, unless the account has `maxPerAccount` already. */
  create(
    webhook: NewWebhookRecord,
    sealedSecret: string,
    maxPerAccount: number,
  ): Promise<StoredWebhook | 'limit_reached'>;
  /** Newest first; `limit + 1` rows are asked for by the caller to know whether a page follows. */
  list(accountId: string, page: PageRequest<WebhookPosition>): Promise<StoredWebhook[]>;
  find(accountId: string, webhookId: string): Promise<StoredWebhook | null>;
  update(accountId: string, webhookId: string, changes: WebhookChanges, now: Date): Promise<StoredWebhook | null>;
  remove(accountId: string, webhookId: string): Promise<boolean>;
  /**
   * A new secret: the newest before it keeps signing for `overlapHours`, any
   * older one stops now. Null when the account has no such webhook.
   */
  rotateSecret(
    accountId: string,
    webhookId: string,
    sealedSecret: string,
    overlapHours: number,
  ): Promise<{ previousExpiresAt: Date | null } | null>;
  enqueue(webhookId: string, message: QueuedMessage): Promise<void>;
  /** A webhook's attempts since `since`, newest first. */
  attempts(webhookId: string, page: PageRequest<bigint>, since: Date): Promise<StoredAttempt[]>;
  requestReplay(webhookId: string, replay: ReplayRecord): Promise<void>;
}

const COLUMNS = `webhook_id, account_id, url, events, description, enabled, disabled_reason, disabled_at, created_at,
  updated_at, (extract(epoch FROM created_at) * 1000000)::bigint AS created_micros`;

interface Row {
  webhook_id: string;
  account_id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  disabled_reason: 'user' | 'gone' | 'failing' | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date | null;
  created_micros: string;
}

const stored = (row: Row): StoredWebhook => ({
  webhookId: row.webhook_id,
  accountId: row.account_id,
  url: row.url,
  events: row.events,
  description: row.description,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  disabledAt: row.disabled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  createdAtMicros: BigInt(row.created_micros),
});

export function postgresWebhookStore(pool: Pool): WebhookStore {
  return {
    async create(webhook, sealedSecret, maxPerAccount) {
      return inTransaction(pool, async (tx) => {
        // One create at a time per account, so that two at once cannot both pass the bound.
        await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [webhook.accountId]);
        const { rows: counted } = await tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhooks WHERE account_id = $1',
          [webhook.accountId],
        );
        if ((counted[0]?.n ?? 0) >= maxPerAccount) return 'limit_reached' as const;
        const { rows } = await tx.query<Row>(
          `INSERT INTO webhooks (webhook_id, account_id, url, events, description, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
          [webhook.webhookId, webhook.accountId, webhook.url, webhook.events, webhook.description, webhook.createdAt],
        );
        await tx.query(
          'INSERT INTO webhook_secrets (webhook_id, created_at, sealed) VALUES ($1, clock_timestamp(), $2)',
          [webhook.webhookId, sealedSecret],
        );
        return stored(rows[0]!);
      });
    },

    async list(accountId, page) {
      const params: unknown[] = [accountId, page.limit];
      let after = '';
      if (page.after !== undefined) {
        params.push(page.after.createdAtMicros.toString(), page.after.webhookId);
        after = `AND (created_at, webhook_id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid)`;
      }
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 ${after}
         ORDER BY created_at DESC, webhook_id DESC LIMIT $2`,
        params,
      );
      return rows.map(stored);
    },

    async find(accountId, webhookId) {
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM webhooks WHERE webhook_id = $1 AND account_id = $2`,
        [webhookId, accountId],
      );
      return rows[0] ? stored(rows[0]) : null;
    },

    async update(accountId, webhookId, changes, now) {
      const set: string[] = ['updated_at = $3'];
      const params: unknown[] = [webhookId, accountId, now];
      const param = (value: unknown) => `$${params.push(value)}`;
      if (changes.url !== undefined) set.push(`url = ${param(changes.url)}`);
      if (changes.events !== undefined) set.push(`events = ${param(changes.events)}`);
      if (changes.description !== undefined) set.push(`description = ${param(changes.description)}`);
      if (changes.enabled === true) {
        // Enabled again: why it was disabled, and its failing streak, are history.
        set.push('enabled = true', 'disabled_reason = NULL', 'disabled_at = NULL', 'failing_since = NULL');
      } else if (changes.enabled === false) {
        // Disabling a disabled webhook keeps the reason it already had.
        set.push(
          "disabled_reason = CASE WHEN enabled THEN 'user' ELSE disabled_reason END",
          'disabled_at = CASE WHEN enabled THEN $3 ELSE disabled_at END',
          'enabled = false',
        );
      }
      const { rows } = await pool.query<Row>(
        `UPDATE webhooks SET ${set.join(', ')} WHERE webhook_id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
        params,
      );
      return rows[0] ? stored(rows[0]) : null;
    },

    async remove(accountId, webhookId) {
      const { rowCount } = await pool.query('DELETE FROM webhooks WHERE webhook_id = $1 AND account_id = $2', [
        webhookId,
        accountId,
      ]);
      return (rowCount ?? 0) > 0;
    },

    async rotateSecret(accountId, webhookId, sealedSecret, overlapHours) {
      return inTransaction(pool, async (tx) => {
        const { rows: own } = await tx.query(
          'SELECT 1 FROM webhooks WHERE webhook_id = $1 AND account_id = $2 FOR UPDATE',
          [webhookId, accountId],
        );
        if (own.length === 0) return null;
        // A secret still in its overlap stops now: only the newest before this rotation keeps signing.
        await tx.query(
          `UPDATE webhook_secrets SET expires_at = clock_timestamp()
            WHERE webhook_id = $1 AND expires_at IS NOT NULL AND expires_at > clock_timestamp()`,
          [webhookId],
        );
        const { rows } = await tx.query<{ expires_at: Date }>(
          `UPDATE webhook_secrets SET expires_at = clock_timestamp() + $2 * interval '1 hour'
            WHERE webhook_id = $1 AND expires_at IS NULL RETURNING expires_at`,
          [webhookId, overlapHours],
        );
        await tx.query(
          'INSERT INTO webhook_secrets (webhook_id, created_at, sealed) VALUES ($1, clock_timestamp(), $2)',
          [webhookId, sealedSecret],
        );
        return { previousExpiresAt: rows[0]?.expires_at ?? null };
      });
    },

    async enqueue(webhookId, message) {
      await pool.query(
        `INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, payload) VALUES ($1, $2, $3, $4)`,
        [webhookId, message.messageId, message.eventType, message.payload],
      );
    },

    async attempts(webhookId, page, since) {
      const params: unknown[] = [webhookId, since, page.limit];
      const before = page.after === undefined ? '' : `AND attempt_id < $${params.push(page.after.toString())}`;
      const { rows } = await pool.query<{
        attempt_id: string;
        message_id: string;
        event_type: WebhookMessageType;
        attempt: number;
        replay: boolean;
        attempted_at: Date;
        response_status: number | null;
        error: string | null;
        latency_ms: number;
      }>(
        `SELECT attempt_id, message_id, event_type, attempt, replay, attempted_at, response_status, error, latency_ms
           FROM webhook_attempts WHERE webhook_id = $1 AND attempted_at >= $2 ${before}
          ORDER BY attempt_id DESC LIMIT $3`,
        params,
      );
      return rows.map((r) => ({
        attemptId: BigInt(r.attempt_id),
        messageId: r.message_id,
        eventType: r.event_type,
        attempt: r.attempt,
        replay: r.replay,
        attemptedAt: r.attempted_at,
        responseStatus: r.response_status,
        error: r.error,
        latencyMs: r.latency_ms,
      }));
    },

    async requestReplay(webhookId, replay) {
      await pool.query(
        `INSERT INTO webhook_replays (replay_id, webhook_id, since, until, events, requested_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [replay.replayId, webhookId, replay.since, replay.until, replay.events, replay.requestedAt],
      );
    },
  };
}

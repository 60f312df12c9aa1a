import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { SeenRequest, StoredResponse } from './idempotency-decision';

export interface KeyRef {
  accountId: string;
  key: string;
}

export type BeginOutcome =
  /**
   * This request holds the key now; `owner` proves it when the response is
   * stored. `workId` names its work (see work-identity.ts): the last
   * holder's, if that one died or failed before it answered (`resumed`);
   * else drawn afresh.
   */
  | { kind: 'acquired'; owner: string; workId: string; resumed: boolean }
  | { kind: 'seen'; seen: SeenRequest }
  /** The holder released the key between the two statements: try again. */
  | { kind: 'released' };

/** The Idempotency-Key records (table `idempotency_keys`), shared by every write-API process. */
export interface IdempotencyStore {
  begin(ref: KeyRef, requestHash: string): Promise<BeginOutcome>;
  /** Stores the response; a holder whose key was taken over stores nothing. */
  complete(ref: KeyRef, owner: string, response: StoredResponse): Promise<void>;
  /** Frees the key for a retry (the response was not final); the retry takes over its work. */
  release(ref: KeyRef, owner: string): Promise<void>;
  /** Deletes records past the retention; returns how many. */
  purgeExpired(): Promise<number>;
}

export interface IdempotencyStoreOptions {
  /** How long a key holds its response (24 h). */
  retentionMs: number;
  /**
   * A request still at work after this is taken for dead (its process
   * crashed) and its key is given to the next request. Far above the ~5 s in
   * which a create answers, so a live request is never taken over.
   */
  leaseMs: number;
}

export function postgresIdempotencyStore(pool: Pool, options: IdempotencyStoreOptions): IdempotencyStore {
  const { retentionMs, leaseMs } = options;
  return {
    async begin({ accountId, key }, requestHash) {
      // The primary key decides between concurrent requests on any number of
      // processes: one inserts (or takes over an expired record, or one whose
      // holder died or failed), the others find its row. A takeover within
      // the retention keeps the record's work, so it finishes what was begun.
      const owner = randomUUID();
      const taken = await pool.query<{ work_id: string }>(
        `INSERT INTO idempotency_keys AS k (account_id, idempotency_key, request_hash, owner, work_id)
         VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (account_id, idempotency_key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, owner = EXCLUDED.owner, created_at = now(),
               response_status = NULL, response_headers = NULL, response_body = NULL, abandoned = false,
               work_id = CASE
                 WHEN k.work_id IS NULL OR k.created_at < now() - make_interval(secs => $5::double precision / 1000)
                 THEN EXCLUDED.work_id ELSE k.work_id END
         WHERE k.created_at < now() - make_interval(secs => $5::double precision / 1000)
            OR (k.response_status IS NULL
                AND (k.abandoned OR k.created_at < now() - make_interval(secs => $6::double precision / 1000)))
         RETURNING work_id`,
        [accountId, key, requestHash, owner, retentionMs, leaseMs],
      );
      const acquired = taken.rows[0];
      // A record's own first holder draws its work_id as its owner token: nothing can be named by it yet.
      if (acquired) return { kind: 'acquired', owner, workId: acquired.work_id, resumed: acquired.work_id !== owner };
      const { rows } = await pool.query<{
        request_hash: string;
        response_status: number | null;
        response_headers: Record<string, string> | null;
        response_body: string | null;
      }>(
        `SELECT request_hash, response_status, response_headers, response_body FROM idempotency_keys
          WHERE account_id = $1 AND idempotency_key = $2`,
        [accountId, key],
      );
      const row = rows[0];
      if (row === undefined) return { kind: 'released' };
      const response =
        row.response_status === null
          ? null
          : { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? '' };
      return { kind: 'seen', seen: { requestHash: row.request_hash, response } };
    },

    async complete({ accountId, key }, owner, response) {
      await pool.query(
        `UPDATE idempotency_keys SET response_status = $4, response_headers = $5, response_body = $6
          WHERE account_id = $1 AND idempotency_key = $2 AND owner = $3`,
        [accountId, key, owner, response.status, JSON.stringify(response.headers), response.body],
      );
    },

    async release({ accountId, key }, owner) {
      // Kept, not deleted: the next request with the key takes it over at once, with its work.
      await pool.query(
        `UPDATE idempotency_keys SET abandoned = true
          WHERE account_id = $1 AND idempotency_key = $2 AND owner = $3 AND response_status IS NULL`,
        [accountId, key, owner],
      );
    },

    async purgeExpired() {
      const { rowCount } = await pool.query(
        `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)`,
        [retentionMs],
      );
      return rowCount ?? 0;
    },
  };
}

import type { Pool } from 'pg';
import { CHANNELS, domainChangedPayload, inTransaction, type Statements } from '@shortlink/postgres';
import type { DomainRow } from './domain-resource';

/** The redirect settings a change sets; null removes one. */
export interface DomainChanges {
  rootRedirect?: string | null;
  notFoundRedirect?: string | null;
}

export type CreateOutcome = DomainRow | 'exists' | 'taken' | 'limit_reached';
export type VerifyOutcome = DomainRow | 'taken' | null;

/**
 * The `domains` table (migration 0019), as the write API and the operator's
 * command use it. Every read and change of the API names its account:
 * another account's domain is not there. A hostname is stored as
 * `normaliseHostname` gives it.
 */
export interface DomainStore {
  /** A pending claim, unless the account has it already, another verified it, or the account is at its limit. */
  create(accountId: string, hostname: string, challengeToken: string, maxPerAccount: number): Promise<CreateOutcome>;
  list(accountId: string): Promise<DomainRow[]>;
  find(accountId: string, hostname: string): Promise<DomainRow | null>;
  /**
   * Verified now (or kept as verified); `taken` when another account's claim was verified first. This and the two
   * changes below notify the redirectors in their transaction under `changeId`, which each confirms once it holds the
   * domain's new state.
   */
  markVerified(accountId: string, hostname: string, by: 'dns' | 'operator', changeId: string): Promise<VerifyOutcome>;
  update(accountId: string, hostname: string, changes: DomainChanges, changeId: string): Promise<DomainRow | null>;
  /** Deleted: true; `in_use` while links are on it (live ones, or creates under way); false: no such domain. */
  remove(accountId: string, hostname: string, changeId: string): Promise<boolean | 'in_use'>;
  /** Every account's claim of one hostname, for the operator. */
  claims(hostname: string): Promise<DomainRow[]>;
  /** Every domain, for the operator. */
  all(): Promise<DomainRow[]>;
}

const COLUMNS = `account_id, hostname, challenge_token, verified_at, verified_by, root_redirect, not_found_redirect, created_at`;

interface Row {
  account_id: string;
  hostname: string;
  challenge_token: string;
  verified_at: Date | null;
  verified_by: 'dns' | 'operator' | null;
  root_redirect: string | null;
  not_found_redirect: string | null;
  created_at: Date;
}

const toDomain = (row: Row): DomainRow => ({
  accountId: row.account_id,
  hostname: row.hostname,
  challengeToken: row.challenge_token,
  verifiedAt: row.verified_at,
  verifiedBy: row.verified_by,
  rootRedirect: row.root_redirect,
  notFoundRedirect: row.not_found_redirect,
  createdAt: row.created_at,
});

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown) => (err as { code?: unknown }).code === UNIQUE_VIOLATION;

/**
 * Tells listeners (the redirectors, once they serve domains) that a
 * hostname's domain changed or is gone, in the changing transaction: a
 * listener that holds its lease has seen it before the change is answered.
 */
const notify = (db: Statements, hostname: string, changeId: string) =>
  db.query('SELECT pg_notify($1, $2)', [CHANNELS.domainChanged, domainChangedPayload(changeId, hostname)]);

export function postgresDomainStore(pool: Pool): DomainStore {
  return {
    async create(accountId, hostname, challengeToken, maxPerAccount) {
      return inTransaction(pool, async (db) => {
        // One create of an account at a time: the count and the insert agree.
        await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`domains:${accountId}`]);
        const { rows } = await db.query<{ own: boolean; verified: boolean }>(
          `SELECT account_id = $1 AS own, verified_at IS NOT NULL AS verified FROM domains WHERE hostname = $2`,
          [accountId, hostname],
        );
        if (rows.some((r) => r.own)) return 'exists';
        if (rows.some((r) => r.verified)) return 'taken';
        const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM domains WHERE account_id = $1', [
          accountId,
        ]);
        if ((count.rows[0]?.n ?? 0) >= maxPerAccount) return 'limit_reached';
        try {
          const inserted = await db.query<Row>(
            `INSERT INTO domains (account_id, hostname, challenge_token) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
            [accountId, hostname, challengeToken],
          );
          return toDomain(inserted.rows[0]!);
        } catch (err) {
          if (isUniqueViolation(err)) return 'exists';
          throw err;
        }
      });
    },
    async list(accountId) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM domains WHERE account_id = $1 ORDER BY hostname`, [
        accountId,
      ]);
      return rows.map(toDomain);
    },
    async find(accountId, hostname) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM domains WHERE account_id = $1 AND hostname = $2`, [
        accountId,
        hostname,
      ]);
      return rows[0] ? toDomain(rows[0]) : null;
    },
    async markVerified(accountId, hostname, by, changeId) {
      try {
        return await inTransaction(pool, async (db) => {
          const { rows } = await db.query<Row>(
            `UPDATE domains SET verified_at = coalesce(verified_at, now()), verified_by = coalesce(verified_by, $3),
               updated_at = now()
             WHERE account_id = $1 AND hostname = $2 RETURNING ${COLUMNS}`,
            [accountId, hostname, by],
          );
          if (rows[0]) await notify(db, hostname, changeId);
          return rows[0] ? toDomain(rows[0]) : null;
        });
      } catch (err) {
        // domains_verified_once: another account's claim of the hostname is verified.
        if (isUniqueViolation(err)) return 'taken';
        throw err;
      }
    },
    async update(accountId, hostname, changes, changeId) {
      return inTransaction(pool, async (db) => {
        const { rows } = await db.query<Row>(
          `UPDATE domains SET
             root_redirect = CASE WHEN $3 THEN $4 ELSE root_redirect END,
             not_found_redirect = CASE WHEN $5 THEN $6 ELSE not_found_redirect END,
             updated_at = now()
           WHERE account_id = $1 AND hostname = $2 RETURNING ${COLUMNS}`,
          [
            accountId,
            hostname,
            'rootRedirect' in changes,
            changes.rootRedirect ?? null,
            'notFoundRedirect' in changes,
            changes.notFoundRedirect ?? null,
          ],
        );
        if (rows[0]) await notify(db, hostname, changeId);
        return rows[0] ? toDomain(rows[0]) : null;
      });
    },
    async remove(accountId, hostname, changeId) {
      return inTransaction(pool, async (db) => {
        const { rowCount: held } = await db.query(
          'SELECT 1 FROM domains WHERE account_id = $1 AND hostname = $2 FOR UPDATE',
          [accountId, hostname],
        );
        if (held === 0) return false;
        // A hostname holds only letters, digits, dots and hyphens: no LIKE wildcard (migration 0021's index).
        const { rowCount: links } = await db.query(
          `SELECT 1 FROM slug_claims
            WHERE position('/' IN slug) > 0 AND slug LIKE $1 AND account_id = $2 AND deleted_at IS NULL LIMIT 1`,
          [`${hostname}/%`, accountId],
        );
        if (links !== 0) return 'in_use';
        await db.query('DELETE FROM domains WHERE account_id = $1 AND hostname = $2', [accountId, hostname]);
        await notify(db, hostname, changeId);
        return true;
      });
    },
    async claims(hostname) {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM domains WHERE hostname = $1 ORDER BY created_at`, [
        hostname,
      ]);
      return rows.map(toDomain);
    },
    async all() {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM domains ORDER BY hostname, created_at`);
      return rows.map(toDomain);
    },
  };
}

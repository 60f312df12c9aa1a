import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { inTransaction, type Statements } from '@shortlink/postgres';
import { generateApiKey } from './api-key';
import type { Plan } from './plans';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  displayPrefix: string;
  accountId: string;
  accountName: string;
  plan: Plan;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface IssuedKey {
  key: string;
  keyId: string;
  account: Account;
}

/** Creates an account and its first key in one transaction. */
export async function createAccountWithKey(
  pool: Pool,
  input: { accountName: string; keyName: string; plan: Plan },
): Promise<IssuedKey> {
  const account: Account = { id: randomUUID(), name: input.accountName, plan: input.plan };
  return inTransaction(pool, async (client) => {
    await client.query('INSERT INTO accounts (id, name, plan) VALUES ($1, $2, $3)', [
      account.id,
      account.name,
      account.plan,
    ]);
    return insertKey(client, account, input.keyName);
  });
}

/** Adds a key to an existing account, for rotation. */
export async function addKeyToAccount(pool: Pool, accountId: string, keyName: string): Promise<IssuedKey | null> {
  const { rows } = await pool.query<Account>('SELECT id, name, plan FROM accounts WHERE id = $1', [accountId]);
  const account = rows[0];
  if (!account) return null;
  return insertKey(pool, account, keyName);
}

async function insertKey(db: Statements, account: Account, keyName: string): Promise<IssuedKey> {
  const { key, hash, displayPrefix } = generateApiKey();
  const keyId = randomUUID();
  await db.query('INSERT INTO api_keys (id, account_id, name, display_prefix, key_hash) VALUES ($1, $2, $3, $4, $5)', [
    keyId,
    account.id,
    keyName,
    displayPrefix,
    hash,
  ]);
  return { key, keyId, account };
}

export async function listKeys(pool: Pool): Promise<ApiKeyRow[]> {
  const { rows } = await pool.query<ApiKeyRow>(
    `SELECT k.id, k.name, k.display_prefix AS "displayPrefix", a.id AS "accountId", a.name AS "accountName",
            a.plan, k.created_at AS "createdAt", k.revoked_at AS "revokedAt"
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      ORDER BY k.created_at`,
  );
  return rows;
}

/** Revokes a key by id; false when no active key has that id. */
export async function revokeKey(pool: Pool, keyId: string): Promise<boolean> {
  const result = await pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [
    keyId,
  ]);
  return result.rowCount === 1;
}

/** An active key, by its hash: its id (what rate limits count by) and its account. */
export interface ActiveKey {
  keyId: string;
  account: Account;
}

/** The active key with this hash, and its account. */
export async function findActiveKeyByHash(pool: Pool, hash: Buffer): Promise<ActiveKey | null> {
  const { rows } = await pool.query<Account & { keyId: string }>(
    `SELECT k.id AS "keyId", a.id, a.name, a.plan
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hash],
  );
  const row = rows[0];
  return row ? { keyId: row.keyId, account: { id: row.id, name: row.name, plan: row.plan } } : null;
}

/** The account an active key belongs to, by the key's hash. */
export async function findAccountByKeyHash(pool: Pool, hash: Buffer): Promise<Account | null> {
  return (await findActiveKeyByHash(pool, hash))?.account ?? null;
}

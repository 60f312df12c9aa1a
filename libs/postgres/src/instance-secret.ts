import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

/** The installation's secret of that name, created at random on first use by whichever process comes first. */
export async function instanceSecret(pool: Pool, name: string): Promise<string> {
  await pool.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    randomBytes(32).toString('base64url'),
  ]);
  const { rows } = await pool.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [name]);
  if (!rows[0]) throw new Error(`instance secret ${name} missing`);
  return rows[0].value;
}

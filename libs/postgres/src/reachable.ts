import type { Pool } from 'pg';

const checks = new WeakMap<Pool, () => Promise<void>>();

/**
 * A readiness check of a pool's Postgres: one `SELECT 1`. The same function
 * for the same pool, so the services of one process sharing a pool are
 * checked once per probe.
 */
export function postgresReachable(pool: Pool): () => Promise<void> {
  let check = checks.get(pool);
  if (!check) {
    check = async () => {
      await pool.query('SELECT 1');
    };
    checks.set(pool, check);
  }
  return check;
}

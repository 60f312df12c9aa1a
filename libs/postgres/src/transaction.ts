import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` in a transaction on a connection of its own: committed when it
 * resolves, rolled back when it throws (the error goes on). A connection that
 * failed mid-transaction is closed rather than handed to the next caller.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

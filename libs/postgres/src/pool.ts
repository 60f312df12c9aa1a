import { Pool } from 'pg';
import { migrate } from './migrate';
import { MIGRATIONS_DIR } from './paths';

export interface PoolOptions {
  connectionString: string;
  max: number;
  applicationName: string;
}

export function createPool({ connectionString, max, applicationName }: PoolOptions): Pool {
  const pool = new Pool({
    connectionString,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process; the pool
  // discards it and the next checkout opens a fresh one.
  pool.on('error', () => undefined);
  return pool;
}

/** A pool on a migrated database: what every service that uses Postgres starts with. */
export async function openDatabase(options: PoolOptions & { migrationsDir: string }): Promise<Pool> {
  const pool = createPool(options);
  try {
    await migrate(pool, options.migrationsDir);
  } catch (e) {
    await pool.end();
    throw e;
  }
  return pool;
}

/** `openDatabase` from a service's validated settings, with the project's migrations. */
export function openServiceDatabase(
  config: { DATABASE_URL: string; DATABASE_POOL_SIZE: number },
  applicationName: string,
): Promise<Pool> {
  return openDatabase({
    connectionString: config.DATABASE_URL,
    max: config.DATABASE_POOL_SIZE,
    applicationName,
    migrationsDir: MIGRATIONS_DIR,
  });
}

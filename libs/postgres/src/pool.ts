import { Pool } from 'pg';

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

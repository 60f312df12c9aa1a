import type { Pool } from 'pg';
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from '@shortlink/config';
import { createPool, migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { embeddedPostgresFor } from './embedded-stack';

/** What an operator command (`npm run apikey`, `npm run domains`) reads to find the installation's Postgres. */
export const operatorDatabaseEnv = z.object({
  DATABASE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional(),
  ),
  DATA_DIR: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined),
    z.string().default(DEFAULT_DATA_DIR),
  ),
});
export type OperatorDatabaseEnv = z.infer<typeof operatorDatabaseEnv>;

/** Those settings, as a command's `--help` lists them. */
export const OPERATOR_DATABASE_HELP = `settings (environment):
  DATABASE_URL   the Postgres of a deployment on servers (postgres://…)
  DATA_DIR       unset DATABASE_URL: the embedded mode's data, default ${DEFAULT_DATA_DIR}
                 (through the running npm start when there is one)`;

/**
 * The same Postgres `npm start` uses, migrated: the configured one, or else the embedded one under DATA_DIR
 * (through the running server when there is one, so it need not stop). `close` ends the pool and, for the
 * embedded one, the session.
 */
export async function openOperatorDatabase(
  env: OperatorDatabaseEnv,
  applicationName: string,
): Promise<{ pool: Pool; close: () => Promise<void> }> {
  const database = env.DATABASE_URL
    ? { url: env.DATABASE_URL, close: async () => undefined }
    : await embeddedPostgresFor(env.DATA_DIR);
  const pool = createPool({ connectionString: database.url, max: 2, applicationName });
  const close = async () => {
    await pool.end();
    await database.close();
  };
  try {
    await migrate(pool, MIGRATIONS_DIR);
  } catch (e) {
    await close();
    throw new Error(
      `Cannot reach the Postgres of ${env.DATABASE_URL ? 'DATABASE_URL' : `DATA_DIR=${env.DATA_DIR}`}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return { pool, close };
}

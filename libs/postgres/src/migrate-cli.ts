/** `npm run db:migrate`: applies the Postgres migrations to DATABASE_URL. */
import { z } from 'zod';
import { loadConfig, runCommand } from '@shortlink/config';
import { migrate } from './migrate';
import { MIGRATIONS_DIR } from './paths';
import { createPool } from './pool';

const HELP = `usage: npm run db:migrate

Applies the Postgres migrations (libs/postgres/migrations) that DATABASE_URL's
database has not had yet; safe to run again. Every service also applies them
when it starts, so this is for a deployment that migrates before it rolls out.

settings (environment):
  DATABASE_URL   the Postgres to migrate (postgres://user:password@host:port/database).
                 Unset: the embedded mode, where npm start applies the migrations
                 itself; there is nothing to do.`;

const migrateEnv = z.object({
  DATABASE_URL: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional(),
  ),
});

/** The URL to print: the password stays out of terminals and logs. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return 'DATABASE_URL';
  }
}

runCommand({ name: 'npm run db:migrate --', help: HELP, options: {} }, async () => {
  const { DATABASE_URL } = loadConfig(migrateEnv, process.env);
  if (!DATABASE_URL) {
    console.log(
      'DATABASE_URL is not set: nothing to migrate. In the embedded mode npm start applies the migrations itself; ' +
        'set DATABASE_URL to migrate a Postgres server.',
    );
    return;
  }
  const pool = createPool({ connectionString: DATABASE_URL, max: 1, applicationName: 'shortlink-migrate' });
  try {
    const result = await migrate(pool, MIGRATIONS_DIR).catch((e: unknown) => {
      throw new Error(
        `Cannot migrate DATABASE_URL=${shown(DATABASE_URL)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    });
    console.log(
      result.applied.length === 0
        ? `Postgres schema up to date (${result.alreadyApplied} migrations).`
        : `Applied: ${result.applied.join(', ')}`,
    );
  } finally {
    await pool.end();
  }
});

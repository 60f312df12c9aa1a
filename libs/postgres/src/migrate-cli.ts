/** `npm run db:migrate`: applies the Postgres migrations to DATABASE_URL. */
import { loadConfig, postgresEnv } from '@shortlink/config';
import { migrate } from './migrate';
import { MIGRATIONS_DIR } from './paths';
import { createPool } from './pool';

async function main(): Promise<void> {
  const config = loadConfig(postgresEnv, process.env);
  const pool = createPool({ connectionString: config.DATABASE_URL, max: 1, applicationName: 'shortlink-migrate' });
  try {
    const result = await migrate(pool, MIGRATIONS_DIR);
    console.log(
      result.applied.length === 0
        ? `Postgres schema up to date (${result.alreadyApplied} migrations).`
        : `Applied: ${result.applied.join(', ')}`,
    );
  } finally {
    await pool.end();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});

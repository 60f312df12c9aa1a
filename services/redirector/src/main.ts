import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createRedirector, SERVICE_NAME, wireRedirector } from './app';
import { redirectorConfig } from './config';

runMain(async () => {
  const config = loadConfig(redirectorConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const pool = await openDatabase({
    connectionString: config.DATABASE_URL,
    max: config.DATABASE_POOL_SIZE,
    applicationName: SERVICE_NAME,
    migrationsDir: MIGRATIONS_DIR,
  });
  const deps = wireRedirector({ pool, databaseUrl: config.DATABASE_URL, logger });
  await runServices(
    [createRedirector(deps)],
    processOptionsFrom(SERVICE_NAME, config, logger, { onClose: () => pool.end() }),
  );
});

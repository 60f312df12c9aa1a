import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { openServiceDatabase } from '@shortlink/postgres';
import { createRedirector, SERVICE_NAME, wireRedirector } from './app';
import { redirectorConfig } from './config';

runMain(async () => {
  const config = loadConfig(redirectorConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const deps = wireRedirector({ pool, databaseUrl: config.DATABASE_URL, logger });
  await runServices(
    [createRedirector(deps)],
    processOptionsFrom(SERVICE_NAME, config, logger, { onClose: () => pool.end() }),
  );
});

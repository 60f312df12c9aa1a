import { openClickHouse } from '@shortlink/clickhouse';
import { openRateLimiter } from '@shortlink/accounts';
import { loadConfig } from '@shortlink/config';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { createAnalytics, SERVICE_NAME } from './app';
import { composeAnalytics } from './wiring';
import { analyticsConfig } from './config';

runMain(async () => {
  const config = loadConfig(analyticsConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const clickhouse = await openClickHouse(config, SERVICE_NAME);
  const rateLimiter = openRateLimiter(config, logger);
  await runServices(
    [createAnalytics(composeAnalytics(config, { pool, clickhouse, rateLimiter }))],
    processOptionsFrom(SERVICE_NAME, config, logger, {
      metrics,
      onClose: async () => {
        await rateLimiter.close();
        await clickhouse.close();
        await pool.end();
      },
    }),
  );
});

import { openRateLimiter } from '@shortlink/accounts';
import { loadConfig } from '@shortlink/config';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { kafkaNames, openKafka } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { createWriteApi, SERVICE_NAME } from './app';
import { composeWriteApi } from './wiring';
import { writeApiConfig } from './config';

runMain(async () => {
  const config = loadConfig(writeApiConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  const rateLimiter = openRateLimiter(config, logger);
  const deps = composeWriteApi(config, { pool, kafka, names, logger, metrics, rateLimiter });
  await runServices(
    [createWriteApi(deps)],
    processOptionsFrom(SERVICE_NAME, config, logger, {
      metrics,
      onClose: async () => {
        await rateLimiter.close();
        await pool.end();
      },
    }),
  );
});

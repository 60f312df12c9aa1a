import { loadConfig } from '@shortlink/config';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { kafkaNames, openKafka } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { createRedirector, SERVICE_NAME } from './app';
import { redirectorConfig } from './config';
import { composeRedirector } from './wiring';

runMain(async () => {
  const config = loadConfig(redirectorConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  const deps = await composeRedirector(config, { pool, kafka, names, logger, metrics });
  await runServices(
    [createRedirector(deps)],
    processOptionsFrom(SERVICE_NAME, config, logger, {
      metrics,
      onClose: () => pool.end(),
    }),
  );
});

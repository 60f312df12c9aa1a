import { loadConfig } from '@shortlink/config';
import { kafkaNames, openKafka } from '@shortlink/event-log';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { SERVICE_NAME } from './app';
import { webhookDispatcherConfig } from './config';
import { composeWebhookDispatcher } from './wiring';

runMain(async () => {
  const config = loadConfig(webhookDispatcherConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  await runServices(
    [composeWebhookDispatcher(config, { kafka, names, pool, logger, metrics })],
    processOptionsFrom(SERVICE_NAME, config, logger, { metrics, onClose: () => pool.end() }),
  );
});

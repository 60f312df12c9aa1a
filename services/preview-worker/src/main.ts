import { loadConfig } from '@shortlink/config';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { kafkaNames, openKafka } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { SERVICE_NAME } from './app';
import { previewWorkerConfig } from './config';
import { composePreviewWorker } from './wiring';

runMain(async () => {
  const config = loadConfig(previewWorkerConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  await runServices(
    [composePreviewWorker(config, { kafka, names, logger, metrics })],
    processOptionsFrom(SERVICE_NAME, config, logger, { metrics }),
  );
});

import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createIdempotentProducer, kafkaNames, openKafka } from '@shortlink/kafka';
import { createPreviewWorker, previewUserAgent, SERVICE_NAME } from './app';
import { previewWorkerConfig } from './config';

runMain(async () => {
  const config = loadConfig(previewWorkerConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  const worker = createPreviewWorker({
    kafka,
    names,
    newProducer: () => createIdempotentProducer(kafka),
    fetchPolicy: {
      allowPrivateNetworks: config.PREVIEW_ALLOW_PRIVATE_NETWORKS,
      userAgent: previewUserAgent(config.PUBLIC_BASE_URL),
    },
    concurrency: config.PREVIEW_CONCURRENCY,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    logger,
  });
  await runServices([worker], processOptionsFrom(SERVICE_NAME, config, logger));
});

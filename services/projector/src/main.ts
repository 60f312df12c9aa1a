import { openClickHouse } from '@shortlink/clickhouse';
import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createIdempotentProducer, kafkaNames, openKafka } from '@shortlink/kafka';
import { openServiceDatabase } from '@shortlink/postgres';
import { createProjector, SERVICE_NAME } from './app';
import { projectorConfig } from './config';

runMain(async () => {
  const config = loadConfig(projectorConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const pool = await openServiceDatabase(config, SERVICE_NAME);
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: SERVICE_NAME, logger, names });
  const clickhouse = await openClickHouse(config, SERVICE_NAME);
  const projector = createProjector({
    kafka,
    names,
    pool,
    clickhouse,
    newProducer: () => createIdempotentProducer(kafka),
    clickBatchSize: config.CLICK_BATCH_SIZE,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    logger,
  });
  await runServices(
    [projector],
    processOptionsFrom(SERVICE_NAME, config, logger, {
      onClose: async () => {
        await clickhouse.close();
        await pool.end();
      },
    }),
  );
});

/**
 * The single-process deployment: every service's module in one process, on one
 * port, sharing one Postgres pool and one event-log client. With Kafka, Postgres
 * and ClickHouse configured it runs on them; with none configured, on embedded
 * stand-ins with all state under DATA_DIR. This is a composition root, not a
 * service, so it may import services; the services never import each other.
 */
import { openClickHouse } from '@shortlink/clickhouse';
import {
  clickhouseEnv,
  deploymentFrom,
  httpEnv,
  kafkaEnv,
  loadConfig,
  logEnv,
  postgresEnv,
  publicEnv,
  visitorEnv,
} from '@shortlink/config';
import { startEmbeddedStack } from '@shortlink/embedded';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createIdempotentProducer, kafkaNames, openKafka, type EventLogClient } from '@shortlink/kafka';
import { openServiceDatabase } from '@shortlink/postgres';
import { createAnalytics, wireAnalytics } from '@shortlink/service-analytics';
import { previewEnv, wirePreviewWorker } from '@shortlink/service-preview-worker';
import { createProjector } from '@shortlink/service-projector';
import { createRedirector, wireRedirector } from '@shortlink/service-redirector';
import { createWriteApi, wireWriteApi } from '@shortlink/service-write-api';

const standaloneConfig = httpEnv
  .extend(logEnv.shape)
  .extend(visitorEnv.shape)
  .extend(clickhouseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(postgresEnv.shape)
  .extend(publicEnv.shape)
  .extend(previewEnv.shape);

runMain(async () => {
  const deployment = deploymentFrom(process.env);
  const settings = loadConfig(standaloneConfig, process.env);
  const names = kafkaNames(settings.KAFKA_TOPIC_PREFIX);
  const logger = createLogger('shortlink', settings.LOG_LEVEL);

  let config = settings;
  let kafka: EventLogClient;
  let closeStack = async (): Promise<void> => undefined;
  if (deployment.mode === 'embedded') {
    const stack = await startEmbeddedStack({
      dataDir: deployment.dataDir,
      names,
      logger,
      onClickHouseError: (err) => logger.debug({ err }, 'embedded ClickHouse query failed'),
    });
    logger.info(
      { dataDir: stack.dataDir, postgres: stack.databaseUrl, clickhouse: stack.clickhouseUrl },
      'embedded mode: PGlite, chdb and the event log, state in DATA_DIR (set KAFKA_BROKERS, DATABASE_URL and CLICKHOUSE_URL to use servers)',
    );
    config = { ...settings, DATABASE_URL: stack.databaseUrl, CLICKHOUSE_URL: stack.clickhouseUrl };
    kafka = stack.log;
    closeStack = stack.close;
  } else {
    kafka = await openKafka({ brokers: settings.KAFKA_BROKERS, clientId: 'shortlink', logger, names });
  }
  const pool = await openServiceDatabase(config, 'shortlink');
  const clickhouse = await openClickHouse(config, 'shortlink');
  const redirector = await wireRedirector({
    pool,
    databaseUrl: config.DATABASE_URL,
    kafka,
    names,
    visitorSecret: config.VISITOR_HASH_SECRET,
    logger,
    clickWorker:
      deployment.mode === 'servers' ? { brokers: settings.KAFKA_BROKERS, clientId: 'shortlink-clicks' } : undefined,
  });
  const writeApi = wireWriteApi({
    pool,
    kafka,
    names,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
    // Same process: the redirector forgets a cached "not found" before the 201 leaves.
    onLinkCommitted: (slug) => redirector.cache.forget(slug),
  });
  await runServices(
    [
      createProjector({
        kafka,
        names,
        pool,
        clickhouse,
        newProducer: () => createIdempotentProducer(kafka),
        sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
        logger,
      }),
      wirePreviewWorker({ kafka, names, logger, settings: config }),
      createWriteApi(writeApi),
      createAnalytics(wireAnalytics({ pool, clickhouse, publicBaseUrl: config.PUBLIC_BASE_URL })),
      // Last: its `/:slug` route is the catch-all.
      createRedirector(redirector),
    ],
    processOptionsFrom('shortlink', config, logger, {
      onClose: async () => {
        await clickhouse.close();
        await pool.end();
        await closeStack();
      },
    }),
  );
});

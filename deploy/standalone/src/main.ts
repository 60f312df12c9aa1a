/**
 * The single-process deployment: every service's module in one process, on one
 * port, sharing one Postgres pool and one Kafka client. This is a composition
 * root, not a service, so it may import services; the services themselves never
 * import each other.
 */
import { openClickHouse } from '@shortlink/clickhouse';
import {
  clickhouseEnv,
  httpEnv,
  kafkaEnv,
  loadConfig,
  logEnv,
  postgresEnv,
  publicEnv,
  visitorEnv,
} from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createIdempotentProducer, kafkaNames, openKafka } from '@shortlink/kafka';
import { openServiceDatabase } from '@shortlink/postgres';
import { createAnalytics, wireAnalytics } from '@shortlink/service-analytics';
import { createPreviewWorker, previewEnv, previewUserAgent } from '@shortlink/service-preview-worker';
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
  const config = loadConfig(standaloneConfig, process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  const logger = createLogger('shortlink', config.LOG_LEVEL);
  const pool = await openServiceDatabase(config, 'shortlink');
  const kafka = await openKafka({ brokers: config.KAFKA_BROKERS, clientId: 'shortlink', logger, names });
  const clickhouse = await openClickHouse(config, 'shortlink');
  const redirector = await wireRedirector({
    pool,
    databaseUrl: config.DATABASE_URL,
    kafka,
    names,
    visitorSecret: config.VISITOR_HASH_SECRET,
    logger,
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
      createPreviewWorker({
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
      }),
      createWriteApi(writeApi),
      createAnalytics(wireAnalytics({ pool, clickhouse, publicBaseUrl: config.PUBLIC_BASE_URL })),
      // Last: its `/:slug` route is the catch-all.
      createRedirector(redirector),
    ],
    processOptionsFrom('shortlink', config, logger, {
      onClose: async () => {
        await clickhouse.close();
        await pool.end();
      },
    }),
  );
});

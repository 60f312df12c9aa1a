/**
 * `npm start`: every service in one process, on one port, sharing one
 * Postgres pool and one event-log client. With Kafka, Postgres and ClickHouse
 * configured it runs on them; with none configured, on embedded stand-ins with
 * all state under DATA_DIR.
 */
import { resolve } from 'node:path';
import { openRateLimiter } from '@shortlink/accounts';
import { openClickHouse } from '@shortlink/clickhouse';
import { deploymentFrom, loadConfig } from '@shortlink/config';
import { startEmbeddedStack } from '@shortlink/embedded';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { kafkaNames, openKafka, type EventLogClient } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { withLocalBaseUrl } from './local-base-url';
import { localUrl, showsBanner, startBanner } from './start-banner';
import { composeSystem, systemConfig } from './system';

/** A URL to log: the passwords are made for this run and stay in DATA_DIR/embedded.json. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.href;
}

runMain(async () => {
  const deployment = deploymentFrom(process.env);
  const parsed = loadConfig(systemConfig, withLocalBaseUrl(process.env));
  // Resolved once here, so the click projector's thread logs as the main thread does.
  const settings = { ...parsed, LOG_FORMAT: logFormatFor(parsed.LOG_FORMAT, process.stdout.isTTY === true) };
  const names = kafkaNames(settings.KAFKA_TOPIC_PREFIX);
  const logger = createLogger('shortlink', settings.LOG_LEVEL, settings.LOG_FORMAT);
  // The process's one registry: every module's metrics and the HTTP layer's, served at /metrics.
  const metrics = createMetricsRegistry();

  let config = settings;
  let kafka: EventLogClient;
  let closeStack = async (): Promise<void> => undefined;
  let clickProjection: 'event-loop' | 'worker-thread' = 'event-loop';
  if (deployment.mode === 'embedded') {
    const stack = await startEmbeddedStack({
      dataDir: deployment.dataDir,
      names,
      logger,
      onClickHouseError: (err) => logger.debug({ err }, 'embedded ClickHouse query failed'),
      // Every acknowledged write is on disk: exiting lets a supervisor start the whole store again.
      onEngineLost: (err) => {
        logger.fatal({ err }, 'the embedded Postgres stopped; exiting');
        process.exit(1);
      },
    });
    logger.info(
      { dataDir: stack.dataDir, postgres: withoutPassword(stack.databaseUrl), clickhouse: stack.clickhouseUrl },
      'embedded mode: PGlite, chdb and the event log, state in DATA_DIR (set KAFKA_BROKERS, DATABASE_URL and CLICKHOUSE_URL to use servers)',
    );
    // The embedded log lives in this process, so clicks are produced on its event loop.
    config = {
      ...settings,
      DATABASE_URL: stack.databaseUrl,
      CLICKHOUSE_URL: stack.clickhouseUrl,
      CLICKHOUSE_USER: 'default',
      CLICKHOUSE_PASSWORD: stack.clickhousePassword,
      CLICK_PATH: 'event-loop',
    };
    kafka = stack.log;
    closeStack = stack.close;
    // The click projection's work goes to a thread of its own, beside the redirects (see composeSystem).
    clickProjection = 'worker-thread';
  } else {
    kafka = await openKafka({ brokers: settings.KAFKA_BROKERS, clientId: 'shortlink', logger, names });
  }
  const pool = await openServiceDatabase(config, 'shortlink');
  const clickhouse = await openClickHouse(config, 'shortlink');
  const rateLimiter = openRateLimiter(config, logger);
  const system = await composeSystem(
    config,
    { pool, kafka, names, clickhouse, logger, rateLimiter, metrics },
    { clickProjection },
  );
  const app = await runServices(
    system.modules,
    processOptionsFrom('shortlink', config, logger, {
      metrics,
      onClose: async () => {
        await rateLimiter.close();
        await clickhouse.close();
        await pool.end();
        await closeStack();
      },
    }),
  );
  const address = app.server.address();
  if (
    typeof address === 'object' &&
    address !== null &&
    showsBanner(parsed.LOG_FORMAT, process.stderr.isTTY === true)
  ) {
    const url = localUrl(config.HOST, address.port);
    process.stderr.write(
      `\n${startBanner({ url, dataDir: deployment.mode === 'embedded' ? resolve(deployment.dataDir) : undefined })}\n\n`,
    );
  }
});

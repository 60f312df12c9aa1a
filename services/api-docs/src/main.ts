/**
 * The API document and its reference page alone (`GET /openapi.json`,
 * `GET /docs`, `/healthz`): what the fleet runs behind its entry point, where
 * each service is its own process and none of them knows the others' routes.
 * It opens no store. `npm start` serves the same module beside the services.
 */
import { loadConfig } from '@shortlink/config';
import { createLogger, logFormatFor, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createApiDocs, SERVICE_NAME } from './app';
import { composeApiDocs } from './wiring';
import { apiDocsConfig } from './config';

runMain(async () => {
  const config = loadConfig(apiDocsConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL, logFormatFor(config.LOG_FORMAT, process.stdout.isTTY));
  await runServices(
    [createApiDocs(composeApiDocs(config))],
    processOptionsFrom(SERVICE_NAME, config, logger, { metrics: createMetricsRegistry() }),
  );
});

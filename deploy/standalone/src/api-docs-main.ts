/**
 * The API document and its reference page alone (`GET /openapi.json`,
 * `GET /docs`, `/healthz`): what the fleet runs behind its entry point, where
 * each service is its own process and none of them knows the others' routes.
 * It opens no store. `npm start` serves the same module beside the services.
 */
import { createApiDocs, SERVICE_NAME } from '@shortlink/api-docs';
import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { apiDocsConfig } from './api-docs-config';
import { API_ROUTES, API_VERSION } from './api-routes';

runMain(async () => {
  const config = loadConfig(apiDocsConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  await runServices(
    [createApiDocs({ routes: API_ROUTES, publicBaseUrl: config.PUBLIC_BASE_URL, version: API_VERSION })],
    processOptionsFrom(SERVICE_NAME, config, logger, { metrics: createMetricsRegistry() }),
  );
});

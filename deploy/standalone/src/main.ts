/**
 * The single-process deployment: every service's module in one process, on one
 * port. This is a composition root, not a service, so it may import services;
 * the services themselves never import each other.
 */
import { httpEnv, loadConfig, logEnv } from '@shortlink/config';
import { processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createAnalytics } from '@shortlink/service-analytics';
import { createProjector } from '@shortlink/service-projector';
import { createRedirector } from '@shortlink/service-redirector';
import { createWriteApi } from '@shortlink/service-write-api';

const standaloneConfig = httpEnv.extend(logEnv.shape);

runMain(async () => {
  const config = loadConfig(standaloneConfig, process.env);
  await runServices(
    [createWriteApi({}), createAnalytics({}), createProjector({}), createRedirector({})],
    processOptionsFrom('shortlink', config),
  );
});

/**
 * The single-process deployment: every service's module in one process, on one
 * port. This is a composition root, not a service, so it may import services;
 * the services themselves never import each other.
 */
import { httpEnv, loadConfig, logEnv } from '@shortlink/config';
import { runServices } from '@shortlink/http';
import { createAnalytics } from '@shortlink/service-analytics';
import { createProjector } from '@shortlink/service-projector';
import { createRedirector } from '@shortlink/service-redirector';
import { createWriteApi } from '@shortlink/service-write-api';

const standaloneConfig = httpEnv.extend(logEnv.shape);

async function main(): Promise<void> {
  const config = loadConfig(standaloneConfig, process.env);
  await runServices([createWriteApi({}), createAnalytics({}), createProjector({}), createRedirector({})], {
    name: 'shortlink',
    host: config.HOST,
    port: config.PORT,
    trustProxy: config.TRUST_PROXY,
    logger: { level: config.LOG_LEVEL },
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

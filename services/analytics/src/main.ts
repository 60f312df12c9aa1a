import { loadConfig } from '@shortlink/config';
import { createLogger, processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createAnalytics, SERVICE_NAME } from './app';
import { analyticsConfig } from './config';

runMain(async () => {
  const config = loadConfig(analyticsConfig, process.env);
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  await runServices([createAnalytics({})], processOptionsFrom(SERVICE_NAME, config, logger));
});

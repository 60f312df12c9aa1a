import { loadConfig } from '@shortlink/config';
import { processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createAnalytics, SERVICE_NAME } from './app';
import { analyticsConfig } from './config';

runMain(async () => {
  const config = loadConfig(analyticsConfig, process.env);
  await runServices([createAnalytics({})], processOptionsFrom(SERVICE_NAME, config));
});

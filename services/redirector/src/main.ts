import { loadConfig } from '@shortlink/config';
import { processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createRedirector, SERVICE_NAME } from './app';
import { redirectorConfig } from './config';

runMain(async () => {
  const config = loadConfig(redirectorConfig, process.env);
  await runServices([createRedirector({})], processOptionsFrom(SERVICE_NAME, config));
});

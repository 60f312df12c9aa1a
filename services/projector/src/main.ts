import { loadConfig } from '@shortlink/config';
import { processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createProjector, SERVICE_NAME } from './app';
import { projectorConfig } from './config';

runMain(async () => {
  const config = loadConfig(projectorConfig, process.env);
  await runServices([createProjector({})], processOptionsFrom(SERVICE_NAME, config));
});

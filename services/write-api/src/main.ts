import { loadConfig } from '@shortlink/config';
import { processOptionsFrom, runMain, runServices } from '@shortlink/http';
import { createWriteApi, SERVICE_NAME } from './app';
import { writeApiConfig } from './config';

runMain(async () => {
  const config = loadConfig(writeApiConfig, process.env);
  await runServices([createWriteApi({})], processOptionsFrom(SERVICE_NAME, config));
});

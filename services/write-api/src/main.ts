import { loadConfig } from '@shortlink/config';
import { runServices } from '@shortlink/http';
import { createWriteApi } from './app';
import { writeApiConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(writeApiConfig, process.env);
  await runServices([createWriteApi({})], {
    name: 'write-api',
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

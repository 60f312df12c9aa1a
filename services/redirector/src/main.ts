import { loadConfig } from '@shortlink/config';
import { runServices } from '@shortlink/http';
import { createRedirector } from './app';
import { redirectorConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(redirectorConfig, process.env);
  await runServices([createRedirector({})], {
    name: 'redirector',
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

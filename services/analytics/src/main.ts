import { loadConfig } from '@shortlink/config';
import { runServices } from '@shortlink/http';
import { createAnalytics } from './app';
import { analyticsConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(analyticsConfig, process.env);
  await runServices([createAnalytics({})], {
    name: 'analytics',
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

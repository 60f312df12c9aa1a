import { loadConfig } from '@shortlink/config';
import { runServices } from '@shortlink/http';
import { createProjector } from './app';
import { projectorConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(projectorConfig, process.env);
  await runServices([createProjector({})], {
    name: 'projector',
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

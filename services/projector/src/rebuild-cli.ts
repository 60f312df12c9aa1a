/**
 * `npm run rebuild`: rebuilds the Postgres `links` projection from the links
 * topic, which keeps every event forever. On servers it may run beside the
 * live system; in the embedded mode the server must be stopped first (the
 * embedded stores belong to one process at a time).
 */
import { deploymentFrom, kafkaEnv, loadConfig, postgresEnv } from '@shortlink/config';
import { startEmbeddedStack } from '@shortlink/embedded';
import { createKafka, kafkaLogClient, kafkaNames, type EventLogClient } from '@shortlink/event-log';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { rebuildLinks } from './links/rebuild/rebuild-links';

const PHASES = {
  loaded: 'Loaded the topic into new tables',
  indexed: 'Built their indexes',
  swapped: 'Swapped them in for the projection',
} as const;

async function main(): Promise<void> {
  const deployment = deploymentFrom(process.env);
  const config = loadConfig(kafkaEnv.extend(postgresEnv.shape), process.env);
  const names = kafkaNames(config.KAFKA_TOPIC_PREFIX);
  let databaseUrl = config.DATABASE_URL;
  let kafka: EventLogClient = kafkaLogClient(
    createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'shortlink-rebuild' }),
  );
  let closeStack = async (): Promise<void> => undefined;
  if (deployment.mode === 'embedded') {
    const stack = await startEmbeddedStack({ dataDir: deployment.dataDir, names });
    databaseUrl = stack.databaseUrl;
    kafka = stack.log;
    closeStack = stack.close;
  }
  // The rebuild's own (lock and swap), its writer and two index builders, with room to spare.
  const pool = await openDatabase({
    connectionString: databaseUrl,
    max: 6,
    applicationName: 'shortlink-rebuild',
    migrationsDir: MIGRATIONS_DIR,
  });
  try {
    const started = Date.now();
    const result = await rebuildLinks(kafka, pool, names, {
      // The embedded mode's Postgres socket speaks no COPY.
      creationLoad: deployment.mode === 'embedded' ? 'json' : 'copy',
      onPhase: async (phase) => {
        process.stderr.write(`${PHASES[phase]} after ${Date.now() - started} ms\n`);
      },
    });
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM links');
    console.log(
      `Rebuilt links from the topic in ${Date.now() - started} ms: ${result.applied} events applied, ` +
        `${result.skipped} skipped, ${rows[0]?.n ?? 0} links.`,
    );
  } finally {
    await pool.end();
    await closeStack();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});

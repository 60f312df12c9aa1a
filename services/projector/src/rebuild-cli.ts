/**
 * `npm run rebuild`: rebuilds the Postgres `links` projection from the links
 * topic, which keeps every event forever. On servers it may run beside the
 * live system; in the embedded mode the server must be stopped first (the
 * embedded stores belong to one process at a time).
 */
import { z } from 'zod';
import { DEFAULT_DATA_DIR, deploymentFrom, kafkaEnv, loadConfig, postgresEnv, runCommand } from '@shortlink/config';
import { startEmbeddedStack } from '@shortlink/embedded';
import { createKafka, kafkaLogClient, kafkaNames, type EventLogClient } from '@shortlink/event-log';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { rebuildLinks } from './links/rebuild/rebuild-links';

const PHASES = {
  loaded: 'Loaded the topic into new tables',
  indexed: 'Built their indexes',
  swapped: 'Swapped them in for the projection',
} as const;

const HELP = `usage: npm run rebuild

Rebuilds the Postgres links projection from the links topic, which keeps every
event. On servers it may run beside the live system; in the embedded mode stop
npm start first (its stores belong to one process at a time).

settings (environment):
  KAFKA_BROKERS, DATABASE_URL, CLICKHOUSE_URL   all set: the servers to rebuild on
                                                (host:port list, postgres://…, http://…)
  KAFKA_TOPIC_PREFIX                            the prefix of the topics, as the services use it
  DATA_DIR                                      none of the three set: the embedded mode's data,
                                                default ${DEFAULT_DATA_DIR}`;

/** The servers' settings, or none of them and DATA_DIR (deploymentFrom refuses a mix). */
const rebuildEnv = kafkaEnv
  .extend(postgresEnv.shape)
  .extend({ CLICKHOUSE_URL: z.string().optional(), DATA_DIR: z.string().optional() });

async function main(): Promise<void> {
  const config = loadConfig(rebuildEnv, process.env);
  const deployment = deploymentFrom(process.env);
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

runCommand({ name: 'npm run rebuild --', help: HELP, options: {} }, main);

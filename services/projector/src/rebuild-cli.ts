/**
 * `npm run rebuild`: rebuilds the Postgres `links` projection from the links
 * topic, which keeps every event forever.
 */
import { kafkaEnv, loadConfig, postgresEnv } from '@shortlink/config';
import { createKafka, kafkaNames } from '@shortlink/kafka';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { rebuildLinks } from './links/rebuild';

async function main(): Promise<void> {
  const config = loadConfig(kafkaEnv.extend(postgresEnv.shape), process.env);
  const pool = await openDatabase({
    connectionString: config.DATABASE_URL,
    max: 4,
    applicationName: 'shortlink-rebuild',
    migrationsDir: MIGRATIONS_DIR,
  });
  try {
    const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'shortlink-rebuild' });
    const started = Date.now();
    const result = await rebuildLinks(kafka, pool, kafkaNames(config.KAFKA_TOPIC_PREFIX));
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM links');
    console.log(
      `Rebuilt links from the topic in ${Date.now() - started} ms: ${result.applied} events applied, ` +
        `${result.skipped} skipped, ${rows[0]?.n ?? 0} links.`,
    );
  } finally {
    await pool.end();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});

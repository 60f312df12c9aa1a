import { ConfigError } from './load-config';

/** The settings that point at servers. All of them, or none. */
export const SERVER_VARIABLES = ['KAFKA_BROKERS', 'DATABASE_URL', 'CLICKHOUSE_URL'] as const;

/** Where the embedded mode keeps its state unless DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = './data';

/** DATA_DIR, or the default. */
export const dataDirFrom = (env: Readonly<Record<string, string | undefined>>): string =>
  (env.DATA_DIR ?? '').trim() || DEFAULT_DATA_DIR;

export type Deployment =
  /** No servers configured: PGlite, chdb and the embedded log, all state under `dataDir`. */
  | { mode: 'embedded'; dataDir: string }
  /** Kafka, Postgres and ClickHouse at the configured addresses. */
  | { mode: 'servers' };

/**
 * Which stack `npm start` (and the CLIs) run on. Some server variables set and
 * others not is refused: half a production configuration quietly running half
 * on embedded stand-ins would lose data in the wrong place.
 */
export function deploymentFrom(env: Readonly<Record<string, string | undefined>>): Deployment {
  const set = SERVER_VARIABLES.filter((name) => (env[name] ?? '').trim() !== '');
  if (set.length === SERVER_VARIABLES.length) return { mode: 'servers' };
  if (set.length === 0) {
    // One process counts each key's requests in its own memory; a Redis named for it would be half a server configuration.
    if ((env.REDIS_URL ?? '').trim() !== '') {
      throw new ConfigError([
        `REDIS_URL is set but ${SERVER_VARIABLES.join(', ')} are not. ` +
          'Redis holds the rate-limit counts of a deployment on servers; the embedded mode counts in its own memory.',
      ]);
    }
    return { mode: 'embedded', dataDir: dataDirFrom(env) };
  }
  const missing = SERVER_VARIABLES.filter((name) => !set.includes(name));
  throw new ConfigError([
    `${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} set but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not. ` +
      `Set all of ${SERVER_VARIABLES.join(', ')} to run on servers, or none of them to run embedded (state in DATA_DIR).`,
  ]);
}

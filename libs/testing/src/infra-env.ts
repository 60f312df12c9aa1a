/** Connection settings every integration test reads, in the services' own variable names. */
export interface InfraEnv {
  KAFKA_BROKERS: string;
  DATABASE_URL: string;
  CLICKHOUSE_URL: string;
  CLICKHOUSE_USER: string;
  CLICKHOUSE_PASSWORD: string;
  /** The rate-limit store the services' own entry points share. */
  REDIS_URL: string;
}

/** The machine's Redis (deploy/local/infra.sh starts it when it is down). */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

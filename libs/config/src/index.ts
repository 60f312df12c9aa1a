export { loadConfig, ConfigError } from './load-config';
export {
  kafkaEnv,
  postgresEnv,
  clickhouseEnv,
  httpEnv,
  logEnv,
  booleanFlag,
  type KafkaEnv,
  type PostgresEnv,
  type ClickHouseEnv,
  type HttpEnv,
} from './schemas';

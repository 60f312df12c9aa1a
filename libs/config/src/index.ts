export { loadConfig, ConfigError } from './load-config';
export {
  kafkaEnv,
  postgresEnv,
  clickhouseEnv,
  clickhouseClusterEnv,
  httpEnv,
  logEnv,
  booleanFlag,
  visitorEnv,
  publicEnv,
  type PublicEnv,
  type KafkaEnv,
  type PostgresEnv,
  type ClickHouseEnv,
  type HttpEnv,
} from './schemas';
export { deploymentFrom, dataDirFrom, DEFAULT_DATA_DIR, SERVER_VARIABLES, type Deployment } from './deployment';

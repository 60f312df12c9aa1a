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
  rateLimitEnv,
  systemRateLimitEnv,
  type RateLimitEnv,
  type PublicEnv,
  type KafkaEnv,
  type PostgresEnv,
  type ClickHouseEnv,
  type HttpEnv,
} from './schemas';
export { deploymentFrom, dataDirFrom, DEFAULT_DATA_DIR, SERVER_VARIABLES, type Deployment } from './deployment';
export { readCommandLine, runCommand, usageLine, UsageError, type Command, type CommandLine } from './command-line';

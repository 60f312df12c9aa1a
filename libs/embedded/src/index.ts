export {
  startEmbeddedStack,
  embeddedPostgresFor,
  runningEmbedded,
  DataDirInUseError,
  NoEmbeddedStoreError,
  type EmbeddedStack,
  type EmbeddedState,
  type EmbeddedOptions,
} from './embedded-stack';
export { startPostgres, type EmbeddedPostgres } from './postgres/start-postgres';
export {
  openOperatorDatabase,
  operatorDatabaseEnv,
  OPERATOR_DATABASE_HELP,
  type OperatorDatabaseEnv,
} from './operator-database';

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
export { EventLog, UnknownTopicError } from './event-log/event-log';
export { embeddedLogClient } from './event-log/embedded-client';
export { startPostgres, type EmbeddedPostgres } from './postgres/start-postgres';

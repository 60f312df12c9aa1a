export { startTestInfra, dockerAvailable, type TestInfra, type InfraEnv, type InfraMode } from './infra';
export {
  infraEnv,
  createScratchPostgres,
  createScratchClickHouse,
  uniqueSuffix,
  eventually,
  type ScratchDatabase,
} from './scratch';
export { startProcess, freePort, type RunningProcess } from './processes';

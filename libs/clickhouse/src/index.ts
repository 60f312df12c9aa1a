export { createClickHouse, ensureDatabase, type ClickHouseOptions } from './client';
export {
  migrateClickHouse,
  splitStatements,
  type ClickHouseMigrateOptions,
  type ClickHouseMigrateResult,
} from './migrate';
export { clusterStatements, createdTables, SHARDING_KEY, type ClusterTarget } from './cluster-statements';
export { CLICKHOUSE_MIGRATIONS_DIR } from './paths';
export { openClickHouse } from './open';
export { clickhouseReachable } from './reachable';

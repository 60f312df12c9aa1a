export { createClickHouse, ensureDatabase, type ClickHouseOptions } from './client';
export { migrateClickHouse, splitStatements, type ClickHouseMigrateResult } from './migrate';
export { CLICKHOUSE_MIGRATIONS_DIR } from './paths';
export { openClickHouse } from './open';
export { clickhouseReachable } from './reachable';

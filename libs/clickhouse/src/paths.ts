import { join } from 'node:path';

/** The project's ClickHouse migrations, shipped beside `dist/` in this package. */
export const CLICKHOUSE_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');

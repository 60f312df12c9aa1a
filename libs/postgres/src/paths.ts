import { join } from 'node:path';

/** The project's Postgres migrations, shipped beside `dist/` in this package. */
export const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');

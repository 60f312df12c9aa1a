import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { migrate } from './migrate';
import { createPool } from './pool';

const env = infraEnv(process.env);

describe('postgres migrations (real server)', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let dir: string;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = createPool({ connectionString: db.url, max: 4, applicationName: 'migrate-int-test' });
    dir = await mkdtemp(join(tmpdir(), 'pg-migrations-'));
    await writeFile(
      join(dir, '0001_widgets.sql'),
      'CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL UNIQUE);',
    );
    await writeFile(
      join(dir, '0002_widget_colour.sql'),
      "ALTER TABLE widgets ADD COLUMN colour text NOT NULL DEFAULT 'red';",
    );
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('applies pending migrations in order, then a query sees the schema', async () => {
    const first = await migrate(pool, dir);
    expect(first.applied).toEqual(['0001_widgets.sql', '0002_widget_colour.sql']);

    await pool.query('INSERT INTO widgets (name) VALUES ($1)', ['sprocket']);
    const { rows } = await pool.query<{ name: string; colour: string }>(
      'SELECT name, colour FROM widgets WHERE name = $1',
      ['sprocket'],
    );
    expect(rows).toEqual([{ name: 'sprocket', colour: 'red' }]);
  });

  it('is a no-op when run again, also from concurrent callers', async () => {
    const results = await Promise.all([migrate(pool, dir), migrate(pool, dir), migrate(pool, dir)]);
    expect(results.map((r) => r.applied)).toEqual([[], [], []]);
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    await writeFile(join(dir, '0003_broken.sql'), 'CREATE TABLE gadgets (id int); SELECT * FROM no_such_table;');
    await expect(migrate(pool, dir)).rejects.toThrow(/0003_broken\.sql failed/);
    const { rows } = await pool.query("SELECT to_regclass('gadgets') AS t");
    expect(rows[0].t).toBeNull();
    const versions = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.rows.map((r) => r.version)).toEqual([1, 2]);
  });

  it('refuses to continue when an applied file was edited', async () => {
    await writeFile(join(dir, '0003_broken.sql'), 'SELECT 1;');
    await writeFile(join(dir, '0001_widgets.sql'), 'CREATE TABLE widgets (id bigserial PRIMARY KEY);');
    await expect(migrate(pool, dir)).rejects.toThrow(/0001_widgets\.sql was changed/);
  });
});

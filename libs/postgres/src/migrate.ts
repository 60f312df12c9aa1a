import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool } from 'pg';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
// Any constant will do; it only has to be the same in every process.
const LOCK_KEY = 7_241_901;

export async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE.exec(file);
    if (!match) throw new Error(`Migration file name must look like 0001_name.sql: ${file}`);
    const sql = await readFile(join(dir, file), 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: file,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) {
    throw new Error(`Duplicate migration version in ${dir}`);
  }
  return migrations;
}

/**
 * Applies pending migrations, each in its own transaction. Safe to run from many
 * processes at once (an advisory lock serialises them), and refuses to go on if
 * an applied file was edited afterwards.
 */
export async function migrate(pool: Pool, dir: string, table = 'schema_migrations'): Promise<MigrateResult> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Invalid migrations table name: ${table}`);
  const migrations = await readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         version integer PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      `SELECT version, name, checksum FROM ${table}`,
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    const applied: string[] = [];
    for (const m of migrations) {
      const previous = done.get(m.version);
      if (previous) {
        if (previous.checksum !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO ${table} (version, name, checksum) VALUES ($1, $2, $3)`, [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(e as Error).message}`, { cause: e });
      }
      applied.push(m.name);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

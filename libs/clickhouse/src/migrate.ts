import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';

export interface ClickHouseMigrateResult {
  applied: string[];
  alreadyApplied: number;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * Splits a migration into statements. ClickHouse's HTTP interface takes one
 * statement per request. Quotes and comments are respected, so a `;` inside a
 * string literal or a comment does not split.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      current += '\n';
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      current += ' ';
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== ch) j += sql[j] === '\\' ? 2 : 1;
      current += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      i++;
      continue;
    }
    current += ch;
    i++;
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

/**
 * Applies numbered `.sql` files in order and records them in `schema_migrations`.
 * ClickHouse has no transactions or advisory locks: statements must be
 * idempotent (`IF NOT EXISTS`), and a single process (the projector) owns the
 * schema, so a half-applied file is simply re-run on the next start.
 */
export async function migrateClickHouse(client: ClickHouseClient, dir: string): Promise<ClickHouseMigrateResult> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (
      version UInt32,
      name String,
      checksum String,
      applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree ORDER BY version`,
  });
  const rows = await (
    await client.query({ query: 'SELECT version, checksum FROM schema_migrations', format: 'JSONEachRow' })
  ).json<{ version: number; checksum: string }>();
  const done = new Map(rows.map((r) => [Number(r.version), r.checksum]));

  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const file of files) {
    const match = FILE.exec(file);
    if (!match) throw new Error(`Migration file name must look like 0001_name.sql: ${file}`);
    const version = Number(match[1]);
    const sql = await readFile(join(dir, file), 'utf8');
    const checksum = createHash('sha256').update(sql).digest('hex');
    const previous = done.get(version);
    if (previous !== undefined) {
      if (previous !== checksum) {
        throw new Error(`ClickHouse migration ${file} was changed after it was applied; add a new one instead`);
      }
      continue;
    }
    for (const statement of splitStatements(sql)) {
      try {
        await client.command({ query: statement });
      } catch (e) {
        throw new Error(`ClickHouse migration ${file} failed: ${(e as Error).message}`, { cause: e });
      }
    }
    await client.insert({
      table: 'schema_migrations',
      values: [{ version, name: file, checksum }],
      format: 'JSONEachRow',
    });
    applied.push(file);
  }
  return { applied, alreadyApplied: done.size };
}

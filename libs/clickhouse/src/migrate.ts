import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { clusterStatements, createdTables, type ClusterTarget } from './cluster-statements';

export interface ClickHouseMigrateOptions {
  /**
   * A cluster of the servers' `remote_servers` (CLICKHOUSE_CLUSTER): the
   * schema is created on every server, replicated and sharded (see
   * cluster-statements.ts). Unset: one server, as the files say.
   */
  cluster?: string;
}

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
export async function migrateClickHouse(
  client: ClickHouseClient,
  dir: string,
  options: ClickHouseMigrateOptions = {},
): Promise<ClickHouseMigrateResult> {
  const cluster = options.cluster ? await clusterOf(client, options.cluster) : undefined;
  await client.command({
    query: cluster ? schemaMigrationsOnCluster(cluster) : SCHEMA_MIGRATIONS,
    clickhouse_settings: cluster?.settings,
  });
  const rows = await (
    await client.query({ query: 'SELECT version, checksum FROM schema_migrations', format: 'JSONEachRow' })
  ).json<{ version: number; checksum: string }>();
  const done = new Map(rows.map((r) => [Number(r.version), r.checksum]));

  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await readFile(join(dir, file), 'utf8'));
  // On a cluster, a view of a later migration reads the local form of a table an earlier one made.
  const target = cluster && {
    ...cluster,
    tables: new Set([...sources.values()].flatMap((sql) => createdTables(splitStatements(sql)))),
  };
  const applied: string[] = [];
  for (const file of files) {
    const match = FILE.exec(file);
    if (!match) throw new Error(`Migration file name must look like 0001_name.sql: ${file}`);
    const version = Number(match[1]);
    const sql = sources.get(file)!;
    const checksum = createHash('sha256').update(sql).digest('hex');
    const previous = done.get(version);
    if (previous !== undefined) {
      if (previous !== checksum) {
        throw new Error(`ClickHouse migration ${file} was changed after it was applied; add a new one instead`);
      }
      continue;
    }
    const statements = splitStatements(sql).flatMap((s) => (target ? clusterStatements(s, target) : [s]));
    for (const statement of statements) {
      try {
        await client.command({ query: statement, clickhouse_settings: cluster?.settings });
      } catch (e) {
        throw new Error(`ClickHouse migration ${file} failed: ${(e as Error).message}`, { cause: e });
      }
    }
    await client.insert({
      table: 'schema_migrations',
      values: [{ version, name: file, checksum }],
      format: 'JSONEachRow',
      clickhouse_settings: cluster?.settings,
    });
    applied.push(file);
  }
  return { applied, alreadyApplied: done.size };
}

const SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = MergeTree ORDER BY version`;

/**
 * On a cluster, every server holds the list of applied migrations: one
 * replication group across all shards (no {shard} in its path), so whichever
 * server the projector reaches knows what was applied.
 */
export const schemaMigrationsOnCluster = ({ cluster, database }: Omit<ClusterTarget, 'tables'>): string =>
  SCHEMA_MIGRATIONS.replace('schema_migrations (', `schema_migrations ON CLUSTER ${cluster} (`).replace(
    'ENGINE = MergeTree',
    `ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/${database}/schema_migrations', '{shard}-{replica}')`,
  );

interface ClusterMigration {
  cluster: string;
  database: string;
  /** A backfill through a Distributed table is written to the shards before the statement returns. */
  settings: { insert_distributed_sync: 1 };
}

/** The database exists on the server the client reaches (openClickHouse); made on the others too. */
async function clusterOf(client: ClickHouseClient, cluster: string): Promise<ClusterMigration> {
  const [row] = await (
    await client.query({ query: 'SELECT currentDatabase() AS database', format: 'JSONEachRow' })
  ).json<{ database: string }>();
  const database = row!.database;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(cluster)) throw new Error(`Invalid ClickHouse cluster name: ${cluster}`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database} ON CLUSTER ${cluster}` });
  return { cluster, database, settings: { insert_distributed_sync: 1 } };
}

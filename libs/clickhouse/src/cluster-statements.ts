/**
 * The cluster form of the migrations: on a cluster (CLICKHOUSE_CLUSTER) each statement is rewritten as applied, so the
 * files, checksums and single-server schema stay as they are. A table `t` becomes `t_local ON CLUSTER` (Replicated
 * engine) plus `t` on `Distributed`, sharded by `link_id`, so a link's clicks and aggregates share a shard; a
 * materialized view fills the local tables; an `INSERT … SELECT` runs once through the Distributed tables; a column
 * is added to the local tables and to the Distributed table over them. Any other
 * shape is refused, so a migration never reaches a cluster half-translated.
 */

export interface ClusterTarget {
  /** A cluster of the servers' `remote_servers`. */
  cluster: string;
  /** The database the migrations run in. */
  database: string;
  /** Every table the migrations create (the names queries use). */
  tables: ReadonlySet<string>;
}

/** Every table with a link, sharded the same way: a link's clicks and its aggregates on one shard. */
export const SHARDING_KEY = 'cityHash64(link_id)';
/**
 * An account's aggregates without a link column. Its views write them on the shard of each click's link, so an
 * account's rows are spread over the shards whatever the key; the key only places backfilled rows. Every read
 * aggregates over the shards (sums, merged visitor sets), so the spread changes no answer.
 */
export const ACCOUNT_SHARDING_KEY = 'cityHash64(account_id)';
/** A table of neither links nor accounts (unknown_slug_hits): by its flush, so an event's rows again meet them. */
export const FLUSH_SHARDING_KEY = 'cityHash64(flush_id)';
export const LOCAL_SUFFIX = '_local';

/** The Keeper path of a shard's replicas of a local table. */
export const replicaPath = (database: string, table: string): string =>
  `/clickhouse/tables/{shard}/${database}/${table}`;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\s*\(/;
const ENGINE = /^\s*ENGINE\s*=\s*([A-Za-z]*)MergeTree\b(?:\s*\(([^()]*)\))?/;
const CREATE_VIEW =
  /^CREATE MATERIALIZED VIEW IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\s+TO\s+([A-Za-z_][A-Za-z0-9_]*)\s+AS\s+/;
const INSERT_SELECT = /^INSERT INTO ([A-Za-z_][A-Za-z0-9_]*)\s+SELECT\b/;
const ADD_COLUMN = /^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*) (ADD COLUMN IF NOT EXISTS [\s\S]+)$/;

/** The names of the tables a migration creates. */
export function createdTables(statements: readonly string[]): string[] {
  return statements.flatMap((s) => {
    const match = CREATE_TABLE.exec(s);
    return match ? [match[1]!] : [];
  });
}

/** The statements that apply one migration statement to every server of the cluster. */
export function clusterStatements(statement: string, target: ClusterTarget): string[] {
  for (const name of [target.cluster, target.database]) {
    if (!IDENTIFIER.test(name)) throw new Error(`Invalid ClickHouse identifier: ${name}`);
  }
  const table = CREATE_TABLE.exec(statement);
  if (table) return createTable(statement, table[1]!, target);
  const view = CREATE_VIEW.exec(statement);
  if (view) return [createView(statement, view, target)];
  const added = ADD_COLUMN.exec(statement);
  // The local tables hold the rows; the Distributed table over them must know the column to read or write it.
  if (added && target.tables.has(added[1]!)) {
    const [, name, change] = added as unknown as [string, string, string];
    return [
      `ALTER TABLE ${name}${LOCAL_SUFFIX} ON CLUSTER ${target.cluster} ${change}`,
      `ALTER TABLE ${name} ON CLUSTER ${target.cluster} ${change}`,
    ];
  }
  const insert = INSERT_SELECT.exec(statement);
  // Read from and written to through the Distributed tables: every row lands on its link's shard.
  if (insert && target.tables.has(insert[1]!)) return [statement];
  throw new Error(
    `This migration statement has no cluster form (see libs/clickhouse/src/cluster-statements.ts):\n${statement}`,
  );
}

function createTable(statement: string, name: string, { cluster, database }: ClusterTarget): string[] {
  const open = statement.indexOf('(');
  const close = matchingParen(statement, open);
  const columns = statement.slice(open, close + 1);
  const rest = statement.slice(close + 1);
  const engine = ENGINE.exec(rest);
  if (!engine) throw new Error(`Table ${name} is not on a MergeTree engine; it has no cluster form`);
  const key = /[(,]\s*link_id\s/.test(columns)
    ? SHARDING_KEY
    : /[(,]\s*account_id\s/.test(columns)
      ? ACCOUNT_SHARDING_KEY
      : /[(,]\s*flush_id\s/.test(columns)
        ? FLUSH_SHARDING_KEY
        : undefined;
  if (!key) throw new Error(`Table ${name} has no link_id, account_id or flush_id column to shard it by`);
  const local = `${name}${LOCAL_SUFFIX}`;
  const args = [`'${replicaPath(database, local)}'`, `'{replica}'`, ...(engine[2]?.trim() ? [engine[2].trim()] : [])];
  // The same deduplication window, kept in Keeper for the shard's replicas instead of on one server.
  const tail = rest
    .slice(engine[0].length)
    .replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window');
  return [
    `CREATE TABLE IF NOT EXISTS ${local} ON CLUSTER ${cluster} ${columns}\nENGINE = Replicated${engine[1]}MergeTree(${args.join(', ')})${tail}`,
    `CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER ${cluster} AS ${local}\nENGINE = Distributed(${cluster}, ${database}, ${local}, ${key})`,
  ];
}

function createView(statement: string, match: RegExpExecArray, target: ClusterTarget): string {
  const [head, view, into] = match as unknown as [string, string, string];
  if (!target.tables.has(into)) throw new Error(`View ${view} fills ${into}, which no migration creates`);
  const select = statement
    .slice(head.length)
    .replace(/\b(FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)\b/g, (whole, keyword: string, source: string) =>
      target.tables.has(source) ? `${keyword} ${source}${LOCAL_SUFFIX}` : whole,
    );
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} ON CLUSTER ${target.cluster} TO ${into}${LOCAL_SUFFIX} AS\n${select}`;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      i = text.indexOf("'", i + 1);
      if (i === -1) break;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  throw new Error(`Unbalanced parentheses in: ${text}`);
}

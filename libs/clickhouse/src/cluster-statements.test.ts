import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ACCOUNT_SHARDING_KEY,
  clusterStatements,
  createdTables,
  FLUSH_SHARDING_KEY,
  SHARDING_KEY,
} from './cluster-statements';
import { schemaMigrationsOnCluster, splitStatements } from './migrate';
import { CLICKHOUSE_MIGRATIONS_DIR } from './paths';

/** The project's own migrations, in order, as migrateClickHouse reads them. */
const files = readdirSync(CLICKHOUSE_MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map((f) => splitStatements(readFileSync(join(CLICKHOUSE_MIGRATIONS_DIR, f), 'utf8')));
const single = files.flat();
const tables = new Set(createdTables(single));
const target = { cluster: 'analytics', database: 'shortlink', tables };
const cluster = single.flatMap((s) => clusterStatements(s, target));

const creates = (kind: RegExp) => cluster.filter((s) => kind.test(s));
const localTables = creates(/^CREATE TABLE IF NOT EXISTS \w+_local /);
const distributed = creates(/ENGINE = Distributed\(/);
const views = creates(/^CREATE MATERIALIZED VIEW /);

describe('the migrations on a cluster', () => {
  it('knows the tables the analytics queries and the projector use', () => {
    expect([...tables].sort()).toEqual([
      'account_daily',
      'account_daily_breakdown',
      'account_link_daily',
      'clicks',
      'link_daily',
      'link_daily_breakdown',
      'link_daily_routes',
      'link_tags',
      'link_uniques',
      'link_visitors',
      'redirects_filtered',
      'unknown_slug_hits',
    ]);
  });

  it('creates every table, local and Distributed, and every view ON CLUSTER', () => {
    for (const s of cluster.filter((s) => s.startsWith('CREATE')))
      expect(s).toMatch(/^CREATE .* ON CLUSTER analytics /);
    expect(localTables).toHaveLength(tables.size);
    expect(distributed).toHaveLength(tables.size);
    expect(views).toHaveLength(single.filter((s) => s.startsWith('CREATE MATERIALIZED VIEW')).length);
  });

  it('keeps each local table on the Replicated form of its engine, per shard and replica', () => {
    const engines = localTables.map((s) =>
      /^CREATE TABLE IF NOT EXISTS (\w+)_local[\s\S]*ENGINE = (\w+)\((.*)\)/m.exec(s)!,
    );
    expect(Object.fromEntries(engines.map(([, name, engine]) => [name, engine]))).toEqual({
      clicks: 'ReplicatedMergeTree',
      account_daily: 'ReplicatedAggregatingMergeTree',
      account_daily_breakdown: 'ReplicatedAggregatingMergeTree',
      account_link_daily: 'ReplicatedAggregatingMergeTree',
      link_daily: 'ReplicatedAggregatingMergeTree',
      link_daily_breakdown: 'ReplicatedSummingMergeTree',
      link_daily_routes: 'ReplicatedAggregatingMergeTree',
      link_tags: 'ReplicatedReplacingMergeTree',
      link_visitors: 'ReplicatedAggregatingMergeTree',
      link_uniques: 'ReplicatedAggregatingMergeTree',
      redirects_filtered: 'ReplicatedReplacingMergeTree',
      unknown_slug_hits: 'ReplicatedReplacingMergeTree',
    });
    for (const [, name, , args] of engines) {
      expect(args).toMatch(new RegExp(`^'/clickhouse/tables/\\{shard\\}/shortlink/${name}_local', '\\{replica\\}'`));
    }
    // SummingMergeTree keeps the column it sums.
    expect(localTables.find((s) => s.includes('link_daily_breakdown_local'))).toContain(
      "ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/shortlink/link_daily_breakdown_local', '{replica}', clicks)",
    );
    // ReplacingMergeTree keeps the column that orders a link's rows.
    expect(localTables.find((s) => s.includes('link_tags_local'))).toContain(
      "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/shortlink/link_tags_local', '{replica}', version)",
    );
  });

  it('keeps the columns, partitioning and order of the single-server tables', () => {
    for (const name of tables) {
      const original = single.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name} (`))!;
      const local = localTables.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name}_local `))!;
      const body = (s: string) => s.slice(s.indexOf('('), s.indexOf('ENGINE')).trim();
      expect(body(local)).toBe(body(original));
      const keys = (s: string) => s.slice(s.indexOf('ENGINE')).replace(/^ENGINE = \w+(\([^)]*\))?/, '');
      expect(keys(local)).toBe(
        keys(original).replace('non_replicated_deduplication_window', 'replicated_deduplication_window'),
      );
    }
  });

  it('deduplicates inserts on the replicas over the same window as one server does', () => {
    for (const s of localTables) {
      expect(s).toContain('SETTINGS replicated_deduplication_window = 100000');
      expect(s).not.toContain('non_replicated');
    }
    for (const s of single.filter((s) => s.startsWith('CREATE TABLE'))) {
      expect(s).toContain('SETTINGS non_replicated_deduplication_window = 100000');
    }
  });

  it('gives the Distributed tables the names the queries use, sharded by link, or by account without one', () => {
    const byAccount = new Set(['account_daily', 'account_daily_breakdown']);
    const keyOf = (name: string) =>
      byAccount.has(name) ? ACCOUNT_SHARDING_KEY : name === 'unknown_slug_hits' ? FLUSH_SHARDING_KEY : SHARDING_KEY;
    for (const name of tables) {
      expect(distributed).toContain(
        `CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER analytics AS ${name}_local\n` +
          `ENGINE = Distributed(analytics, shortlink, ${name}_local, ${keyOf(name)})`,
      );
    }
    expect(SHARDING_KEY).toBe('cityHash64(link_id)');
    expect(ACCOUNT_SHARDING_KEY).toBe('cityHash64(account_id)');
  });

  it('creates a local table before the Distributed table over it', () => {
    for (const name of tables) {
      const local = cluster.findIndex((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name}_local `));
      const over = cluster.findIndex((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER`));
      expect(local).toBeGreaterThanOrEqual(0);
      expect(over).toBe(local + 1);
    }
  });

  it('puts the materialized views on the local tables of each shard', () => {
    for (const view of views) {
      expect(view).toMatch(/ TO \w+_local AS\n/);
      expect(view).toMatch(/\bFROM clicks_local\b/);
      expect(view).not.toMatch(/\bFROM clicks\b(?!_)/);
    }
  });

  it('runs the backfills once, through the Distributed tables', () => {
    const backfills = cluster.filter((s) => s.startsWith('INSERT INTO'));
    expect(backfills).toEqual(single.filter((s) => s.startsWith('INSERT INTO')));
    for (const s of backfills) {
      expect(s).toMatch(/^INSERT INTO (link_visitors|link_uniques|account_\w+)\s[\s\S]*FROM clicks\b/);
    }
  });

  it('adds a column to the local tables first, then to the Distributed table over them, ON CLUSTER', () => {
    expect(
      clusterStatements("ALTER TABLE clicks ADD COLUMN IF NOT EXISTS t LowCardinality(String) DEFAULT 'link'", target),
    ).toEqual([
      "ALTER TABLE clicks_local ON CLUSTER analytics ADD COLUMN IF NOT EXISTS t LowCardinality(String) DEFAULT 'link'",
      "ALTER TABLE clicks ON CLUSTER analytics ADD COLUMN IF NOT EXISTS t LowCardinality(String) DEFAULT 'link'",
    ]);
  });

  it('keeps the list of applied migrations on every server', () => {
    expect(schemaMigrationsOnCluster(target)).toMatch(
      /^CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER analytics \(/,
    );
    expect(schemaMigrationsOnCluster(target)).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/shortlink/schema_migrations', '{shard}-{replica}')",
    );
  });

  it('refuses a statement it cannot translate, rather than half-applying it on a cluster', () => {
    expect(() => clusterStatements('ALTER TABLE clicks DROP COLUMN x', target)).toThrow(/no cluster form/);
    expect(() => clusterStatements('ALTER TABLE nowhere ADD COLUMN IF NOT EXISTS x UInt8', target)).toThrow(
      /no cluster form/,
    );
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS m (link_id UUID) ENGINE = Memory', target)).toThrow(
      /not on a MergeTree engine/,
    );
    expect(() =>
      clusterStatements('CREATE TABLE IF NOT EXISTS t (id UUID) ENGINE = MergeTree ORDER BY id', target),
    ).toThrow(/no link_id, account_id or flush_id column/);
    expect(() => clusterStatements('SELECT 1', { ...target, cluster: 'a; DROP' })).toThrow(
      /Invalid ClickHouse identifier/,
    );
  });
});

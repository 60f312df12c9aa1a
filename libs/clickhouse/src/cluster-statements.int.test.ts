import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { infraEnv } from '@shortlink/testing';
import { createClickHouse } from './client';
import { clusterStatements, createdTables } from './cluster-statements';
import { schemaMigrationsOnCluster, splitStatements } from './migrate';
import { CLICKHOUSE_MIGRATIONS_DIR } from './paths';

const env = infraEnv(process.env);

/**
 * No cluster runs here (docs/clickhouse-operators.md says how to check the cluster path
 * on one); the real engine's parser still reads every statement the cluster
 * path would send, so a rewrite that breaks the SQL fails here.
 */
describe('the cluster form of the migrations, read by the ClickHouse parser', () => {
  let client: ClickHouseClient;

  beforeAll(() => {
    client = createClickHouse({
      url: env.CLICKHOUSE_URL,
      database: 'default',
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      applicationName: 'clickhouse-cluster-int-test',
    });
  });
  afterAll(() => client.close());

  it('parses every statement', async () => {
    const single = readdirSync(CLICKHOUSE_MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .flatMap((f) => splitStatements(readFileSync(join(CLICKHOUSE_MIGRATIONS_DIR, f), 'utf8')));
    const target = { cluster: 'shortlink_cluster', database: 'shortlink', tables: new Set(createdTables(single)) };
    const statements = [schemaMigrationsOnCluster(target), ...single.flatMap((s) => clusterStatements(s, target))];
    for (const statement of statements) {
      const [row] = await (
        await client.query({
          query: 'SELECT formatQuery({q:String}) AS formatted',
          query_params: { q: statement },
          format: 'JSONEachRow',
        })
      ).json<{ formatted: string }>();
      expect(row!.formatted).toContain(statement.startsWith('INSERT') ? 'INSERT INTO' : 'ON CLUSTER shortlink_cluster');
    }
    expect(statements.length).toBeGreaterThan(10);
  });
});

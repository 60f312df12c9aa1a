import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTestInfra, type TestInfra } from './support/link-system';

/** The example queries in docs/clickhouse.md and docs/account-analytics.md run against the real schema. */
describe('docs/clickhouse.md and docs/account-analytics.md', () => {
  let infra: TestInfra;
  const doc = ['clickhouse.md', 'account-analytics.md']
    .map((file) => readFileSync(join(__dirname, '..', 'docs', file), 'utf8'))
    .join('\n');
  const queries = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().replace(/;$/, ''));

  beforeAll(async () => {
    infra = await openTestInfra();
  });

  afterAll(async () => {
    await infra?.close();
  });

  it('has example queries', () => {
    expect(queries.length).toBeGreaterThanOrEqual(5);
  });

  it.each(queries.map((q) => [q.split('\n')[0], q]))('runs: %s', async (_first, query) => {
    const result = await infra.clickhouse.query({
      query: query,
      query_params: { link: '0e6f1a52-7d0c-4b8e-a3a5-2f9b7c1d4e60', account: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c' },
      format: 'JSONEachRow',
    });
    expect(Array.isArray(await result.json())).toBe(true);
  });

  it('documents every column of every table', async () => {
    const columns = await (
      await infra.clickhouse.query({
        query: `SELECT table, name FROM system.columns
                 WHERE database = currentDatabase() AND table IN ('clicks', 'link_daily', 'link_daily_breakdown', 'link_visitors', 'link_uniques',
                                'account_daily', 'account_link_daily', 'account_daily_breakdown')`,
        format: 'JSONEachRow',
      })
    ).json<{ table: string; name: string }>();
    expect(columns.length).toBeGreaterThan(0);
    expect(new Set(columns.map((c) => c.table)).size).toBe(8);
    for (const { name } of columns) expect(doc).toContain(`| \`${name}\``);
  });
});

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { createScratchClickHouse, infraEnv } from '@shortlink/testing';
import { createClickHouse, ensureDatabase } from './client';
import { migrateClickHouse } from './migrate';

const env = infraEnv(process.env);

const SCHEMA = `
-- One row per visit.
CREATE TABLE IF NOT EXISTS visits (
  link_id String,
  at DateTime64(3, 'UTC'),
  country LowCardinality(String)
) ENGINE = MergeTree
PARTITION BY toYYYYMM(at)
ORDER BY (link_id, at)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS visits_daily (
  link_id String,
  day Date,
  visits UInt64
) ENGINE = SummingMergeTree
ORDER BY (link_id, day)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS visits_daily_mv TO visits_daily AS
SELECT link_id, toDate(at) AS day, count() AS visits
FROM visits
GROUP BY link_id, day;
`;

describe('clickhouse adapter (real engine through @clickhouse/client)', () => {
  let client: ClickHouseClient;
  let drop: () => Promise<void>;
  let dir: string;

  beforeAll(async () => {
    const scratch = await createScratchClickHouse(env);
    drop = scratch.drop;
    const options = {
      url: env.CLICKHOUSE_URL,
      database: scratch.name,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      applicationName: 'clickhouse-int-test',
    };
    await ensureDatabase(options);
    client = createClickHouse(options);
    dir = await mkdtemp(join(tmpdir(), 'ch-migrations-'));
    await writeFile(join(dir, '0001_visits.sql'), SCHEMA);
  });

  afterAll(async () => {
    await client.close();
    await drop();
  });

  it('applies migrations once', async () => {
    expect((await migrateClickHouse(client, dir)).applied).toEqual(['0001_visits.sql']);
    expect((await migrateClickHouse(client, dir)).applied).toEqual([]);
  });

  it('inserts rows, fills the materialized view, and answers a parameterised query', async () => {
    await client.insert({
      table: 'visits',
      format: 'JSONEachRow',
      values: [
        { link_id: 'l1', at: '2026-11-20 10:00:00.000', country: 'DE' },
        { link_id: 'l1', at: '2026-11-20 11:00:00.500', country: 'FR' },
        { link_id: 'l1', at: '2026-11-21 09:00:00.000', country: 'DE' },
        { link_id: 'l2', at: '2026-11-21 09:00:00.000', country: "C'A" },
      ],
    });
    const result = await client.query({
      query: `SELECT toString(day) AS date, sum(visits) AS visits
              FROM visits_daily
              WHERE link_id = {link:String} AND day >= {from:Date}
              GROUP BY day ORDER BY day`,
      query_params: { link: 'l1', from: '2026-11-01' },
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      { date: '2026-11-20', visits: 2 },
      { date: '2026-11-21', visits: 1 },
    ]);

    const quoted = await client.query({
      query: 'SELECT count() AS n FROM visits WHERE country = {c:String}',
      query_params: { c: "C'A" },
      format: 'JSONEachRow',
    });
    expect(await quoted.json()).toEqual([{ n: 1 }]);
  });

  it('drops a retried insert with the same deduplication token, in the view too', async () => {
    const rows = [{ link_id: 'l3', at: '2026-11-22 08:00:00.000', country: 'NL' }];
    const settings = {
      insert_deduplication_token: 'batch-l3-0-0',
      deduplicate_blocks_in_dependent_materialized_views: 1,
    } as const;
    await client.insert({ table: 'visits', format: 'JSONEachRow', values: rows, clickhouse_settings: settings });
    await client.insert({ table: 'visits', format: 'JSONEachRow', values: rows, clickhouse_settings: settings });
    // A different token is a different batch.
    await client.insert({
      table: 'visits',
      format: 'JSONEachRow',
      values: rows,
      clickhouse_settings: { ...settings, insert_deduplication_token: 'batch-l3-1-1' },
    });
    const raw = await (
      await client.query({ query: "SELECT count() AS n FROM visits WHERE link_id = 'l3'", format: 'JSONEachRow' })
    ).json();
    const daily = await (
      await client.query({
        query: "SELECT sum(visits) AS n FROM visits_daily WHERE link_id = 'l3'",
        format: 'JSONEachRow',
      })
    ).json();
    expect(raw).toEqual([{ n: 2 }]);
    expect(daily).toEqual([{ n: 2 }]);
  });

  it('surfaces engine errors with their ClickHouse code and type', async () => {
    await expect(client.query({ query: 'SELECT * FROM no_such_table' })).rejects.toMatchObject({
      code: '60',
      type: 'UNKNOWN_TABLE',
    });
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { CLICKHOUSE_MIGRATIONS_DIR, createClickHouse, migrateClickHouse } from '@shortlink/clickhouse';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createScratchClickHouse, createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { addDays, dayOf, twoAccountsClicks, type ClickRow, type LinkExportRow } from './support/two-accounts-clicks';

/**
 * The SQL of docs/clickhouse.md runs against the real schema. Its "Ten questions" are read from the
 * doc (so the question edited there is the one tested), run on two accounts' clicks inserted into
 * `clicks` (the materialized views fill as they do from the projector), and each answer is checked
 * against one computed here from the same rows; the other account's rows never appear.
 */

type Row = Record<string, unknown>;

const DOCS = ['clickhouse.md', 'clickhouse-operators.md', 'account-analytics.md', 'filtered-redirects.md'].map(
  (file) => ({
    file,
    text: readFileSync(join(__dirname, '..', 'docs', file), 'utf8'),
  }),
);
const sqlBlocks = (text: string) => [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
const clickhouseDoc = DOCS[0]!.text;

/**
 * The "Ten questions" section: its set-up statements and export command (before the first question),
 * and its questions.
 */
function tenQuestions(doc: string): {
  setup: string[];
  exportCommand: string;
  questions: { heading: string; sql: string }[];
} {
  const start = doc.indexOf('\n## Ten questions\n');
  if (start === -1) return { setup: [], exportCommand: '', questions: [] };
  const end = doc.indexOf('\n## ', start + 1);
  const [preamble = '', ...parts] = doc.slice(start, end === -1 ? undefined : end).split('\n### ');
  const questions = parts.map((part) => {
    const heading = part.slice(0, part.indexOf('\n')).trim();
    const blocks = sqlBlocks(part);
    if (blocks.length !== 1) throw new Error(`question "${heading}" has ${blocks.length} sql blocks, not one`);
    return { heading, sql: blocks[0]! };
  });
  const exportCommand = /```text\n(psql [\s\S]*?)```/.exec(preamble)?.[1] ?? '';
  return { setup: sqlBlocks(preamble), exportCommand, questions };
}

const { setup, exportCommand, questions } = tenQuestions(clickhouseDoc);
const seeded = twoAccountsClicks(Date.now());
const today = new Date().toISOString().slice(0, 10);
// The range ends two days ago, so clicks after it (today's, yesterday's) must be left out too.
const to = addDays(today, -2);
const from = addDays(to, -29);
const link = (slug: string) => seeded.links.get(slug)!;
const params = {
  account: seeded.accountA,
  from,
  to,
  // Another account's link among them counts for nothing.
  links: [link('spring-one').id, link('retagged').id, link('bravo-spring').id],
};

// ---- The answers, computed from the seeded rows. ----

const mine = seeded.clicks.filter((c) => c.account_id === seeded.accountA);
const inRange = mine.filter((c) => dayOf(c.clicked_at) >= from && dayOf(c.clicked_at) <= to);
/** The newest export row of each link: what `link_export FINAL` holds. */
const current = new Map(seeded.exports.flat().map((row) => [row.link_id, row]));
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const by =
  <T>(...keys: ((row: T) => string | number)[]) =>
  (a: T, b: T) => {
    for (const key of keys) {
      const [x, y] = [key(a), key(b)];
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : bytes(String(x), String(y));
      if (order !== 0) return order;
    }
    return 0;
  };
const desc = (key: (row: Row) => number) => (row: Row) => -key(row);
const num = (field: string) => (row: Row) => row[field] as number;
const str = (field: string) => (row: Row) => row[field] as string;

/** Groups clicks by a key, keeping each group's clicks. */
function groups<K extends string>(clicks: ClickRow[], key: (c: ClickRow) => K): Map<K, ClickRow[]> {
  const out = new Map<K, ClickRow[]>();
  for (const c of clicks) out.set(key(c), [...(out.get(key(c)) ?? []), c]);
  return out;
}
const uniques = (clicks: ClickRow[]) => new Set(clicks.map((c) => c.visitor_hash)).size;
const split = (key: string) => key.split('\u0000');
const limitBy = (rows: Row[], field: string, n: number) => {
  const seen = new Map<unknown, number>();
  return rows.filter((row) => {
    const count = (seen.get(row[field]) ?? 0) + 1;
    seen.set(row[field], count);
    return count <= n;
  });
};
const weekday = (c: ClickRow) => {
  const d = new Date(`${c.clicked_at.replace(' ', 'T')}Z`).getUTCDay();
  return d === 0 ? 7 : d;
};

const EXPECTED: Record<string, () => Row[]> = {
  'Clicks and visitors per day per tag': () =>
    [
      ...groups(
        inRange.filter((c) => current.get(c.link_id)!.tag !== ''),
        (c) => `${dayOf(c.clicked_at)}\u0000${current.get(c.link_id)!.tag}`,
      ),
    ]
      .map(([key, clicks]) => {
        const [day, tag] = split(key);
        return { day, tag, clicks: clicks.length, unique_visitors: uniques(clicks) };
      })
      .sort(by(str('day'), str('tag'))),

  'Top referrers by country': () =>
    limitBy(
      [...groups(inRange, (c) => `${c.country}\u0000${c.referrer}`)]
        .map(([key, clicks]) => {
          const [country, referrer] = split(key);
          return { country, referrer, clicks: clicks.length };
        })
        .sort(by(str('country'), desc(num('clicks')), str('referrer'))),
      'country',
      3,
    ),

  'Unique visitors across several links': () => {
    const chosen = inRange.filter((c) => params.links.includes(c.link_id));
    return [{ clicks: chosen.length, unique_visitors: uniques(chosen) }];
  },

  'Clicks by weekday and hour': () =>
    [...groups(inRange, (c) => `${weekday(c)}\u0000${Number(c.clicked_at.slice(11, 13))}`)]
      .map(([key, clicks]) => {
        const [day, hour] = split(key);
        return { weekday: Number(day), hour: Number(hour), clicks: clicks.length };
      })
      .sort(by(num('weekday'), num('hour'))),

  'Top links: the 7 days to `{to:Date}` against the 7 before': () =>
    [...groups(mine, (c) => c.link_id)]
      .map(([linkId, clicks]) => {
        const days = clicks.map((c) => dayOf(c.clicked_at));
        const thisWeek = days.filter((d) => d > addDays(to, -7) && d <= to).length;
        const lastWeek = days.filter((d) => d >= addDays(to, -13) && d <= addDays(to, -7)).length;
        return {
          link_id: linkId,
          slug: clicks[0]!.slug,
          this_week: thisWeek,
          last_week: lastWeek,
          growth: thisWeek - lastWeek,
        };
      })
      .filter((row) => row.this_week + row.last_week > 0)
      .sort(by(desc(num('this_week')), str('slug')))
      .slice(0, 10),

  'Device and browser share': () =>
    (['browser', 'device'] as const).flatMap((dimension) =>
      [...groups(inRange, (c) => c[dimension])]
        .map(([value, clicks]) => ({
          dimension,
          value,
          clicks: clicks.length,
          share: clicks.length / inRange.length,
        }))
        .sort(by(desc(num('clicks')), str('value'))),
    ),

  'QR scans against followed links': () =>
    [...groups(inRange, (c) => c.link_id)]
      .map(([linkId, clicks]) => ({
        link_id: linkId,
        slug: clicks[0]!.slug,
        scans: clicks.filter((c) => c.trigger === 'qr').length,
        link_clicks: clicks.filter((c) => c.trigger === 'link').length,
      }))
      .sort(by(desc(num('scans')), str('slug'))),

  'New and returning visitors per day': () => {
    const first = new Map<string, string>();
    for (const c of mine) {
      const day = dayOf(c.clicked_at);
      if (!first.has(c.visitor_hash) || day < first.get(c.visitor_hash)!) first.set(c.visitor_hash, day);
    }
    return [...groups(inRange, (c) => dayOf(c.clicked_at))]
      .map(([day, clicks]) => {
        const visitors = new Set(clicks.map((c) => c.visitor_hash));
        const isNew = [...visitors].filter((v) => first.get(v) === day).length;
        return { day, new_visitors: isNew, returning_visitors: visitors.size - isNew };
      })
      .sort(by(str('day')));
  },

  // Ordered by link_id as ClickHouse orders UUIDs; compared link by link below.
  'Top five countries of each link': () =>
    [...groups(inRange, (c) => c.link_id)].flatMap(([linkId, clicks]) =>
      [...groups(clicks, (c) => c.country)]
        .map(([country, of]) => ({ link_id: linkId, country, clicks: of.length }))
        .sort(by(desc(num('clicks')), str('country')))
        .slice(0, 5),
    ),

  'Links without a click in the 30 days to `{to:Date}`': () =>
    [...current.values()]
      .filter((row) => row.account_id === seeded.accountA && row.deleted_at === null)
      .map((row) => {
        const days = mine
          .filter((c) => c.link_id === row.link_id && dayOf(c.clicked_at) <= to)
          .map((c) => dayOf(c.clicked_at))
          .sort();
        return { link_id: row.link_id, slug: row.slug, created_at: row.created_at, last_day: days.at(-1) ?? null };
      })
      .filter((row) => row.last_day === null || row.last_day < addDays(to, -29))
      .sort(by(str('slug'))),
};

/** How an answer is compared: shares are floating point, and UUIDs are in ClickHouse's order. */
function expectAnswer(heading: string, actual: Row[], expected: Row[]): void {
  if (heading === 'Device and browser share') {
    expect(actual.map(({ share: _, ...rest }) => rest)).toEqual(expected.map(({ share: _, ...rest }) => rest));
    actual.forEach((row, i) => expect(row.share).toBeCloseTo(expected[i]!.share as number, 9));
  } else if (heading === 'Top five countries of each link') {
    // Each link's rows together, in the order asked; the links in any order.
    const linkIds = actual.map((row) => row.link_id);
    expect(linkIds).toEqual([...linkIds].sort((a, b) => linkIds.indexOf(a) - linkIds.indexOf(b)));
    const perLink = (rows: Row[]) => [...rows].sort(by((row) => String(row.link_id)));
    expect(perLink(actual)).toEqual(perLink(expected));
  } else {
    expect(actual).toEqual(expected);
  }
}

/**
 * The doc's export command, both halves: psql's `\\copy` of Postgres `links` as CSV, then
 * clickhouse-client's INSERT with its settings (the same statement and settings, over HTTP).
 */
async function exportLinks(databaseUrl: string, clickhouse: ClickHouseClient): Promise<void> {
  const copy = /psql "\$DATABASE_URL" -c "([^"]+)"/.exec(exportCommand)?.[1];
  const insert = /--query '([^']+)'/.exec(exportCommand)?.[1];
  if (!copy || !insert || !exportCommand.includes('--date_time_input_format best_effort')) {
    throw new Error(`the export command is not one this test knows how to run:\n${exportCommand}`);
  }
  const csv = execFileSync('psql', [databaseUrl, '-c', copy], { encoding: 'utf8' });
  await clickhouse.exec({
    query: insert,
    values: Readable.from([csv]),
    clickhouse_settings: { date_time_input_format: 'best_effort' },
  });
}

/** A link row as the projector keeps it in Postgres `links`, at the export row's version. */
async function writeLink(pool: Pool, row: LinkExportRow): Promise<void> {
  const utc = (time: string | null) => (time === null ? null : `${time}+00`);
  await pool.query(
    `INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition,
                        source_offset, version, updated_at, deleted_at)
     VALUES ($1, $2, $3, $4, $5, $6, gen_random_uuid(), 0, $7::integer, $7::integer,
             CASE WHEN $7::integer > 1 THEN now() END, $8)
     ON CONFLICT (slug) DO UPDATE
       SET tag = EXCLUDED.tag, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at,
           deleted_at = EXCLUDED.deleted_at`,
    [
      row.slug,
      row.link_id,
      row.account_id,
      `https://example.com/${row.slug}`,
      row.tag === '' ? null : row.tag,
      utc(row.created_at),
      row.version,
      utc(row.deleted_at),
    ],
  );
}

describe('docs/clickhouse.md, its ten questions on two accounts of real data', () => {
  let clickhouse: ClickHouseClient;
  let scratchClickHouse: Omit<ScratchDatabase, 'url'> | undefined;
  let pool: Pool | undefined;
  let scratchPostgres: ScratchDatabase | undefined;

  beforeAll(async () => {
    const env = infraEnv(process.env);
    const scratch = await createScratchClickHouse(env);
    scratchClickHouse = scratch;
    clickhouse = createClickHouse({
      url: env.CLICKHOUSE_URL,
      database: scratch.name,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      applicationName: 'test',
    });
    await migrateClickHouse(clickhouse, CLICKHOUSE_MIGRATIONS_DIR);
    for (const statement of setup) await clickhouse.command({ query: statement });
    // Several inserts, so the aggregates hold several unmerged rows per key, as a live table does.
    const batches = 4;
    for (let i = 0; i < batches; i++) {
      const values = seeded.clicks.filter((_, n) => n % batches === i);
      await clickhouse.insert({ table: 'clicks', values, format: 'JSONEachRow' });
    }
    // The links in Postgres, exported; then changed (a retag, deletions) and exported again.
    const postgres = await createScratchPostgres(env.DATABASE_URL);
    scratchPostgres = postgres;
    pool = await openDatabase({
      connectionString: postgres.url,
      max: 2,
      applicationName: 'test',
      migrationsDir: MIGRATIONS_DIR,
    });
    for (const rows of seeded.exports) {
      for (const row of rows) await writeLink(pool, row);
      await exportLinks(postgres.url, clickhouse);
    }
  });

  afterAll(async () => {
    await clickhouse?.close();
    await scratchClickHouse?.drop();
    await pool?.end();
    await scratchPostgres?.drop();
  });

  it('has ten questions, each with an answer to check', () => {
    expect(questions.length).toBeGreaterThanOrEqual(10);
    expect(setup.length).toBeGreaterThan(0);
    for (const { heading } of questions) expect(Object.keys(EXPECTED)).toContain(heading);
  });

  it.each(questions.map((q) => [q.heading, q.sql]))('answers: %s', async (heading, sql) => {
    const expected = EXPECTED[heading]!();
    // The seed gives every question something to find.
    expect(expected.length).toBeGreaterThan(0);
    const result = await clickhouse.query({
      query: sql.replace(/;$/, ''),
      query_params: params,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    const actual = await result.json<Row>();
    expectAnswer(heading, actual, expected);
    // The other account: none of its links, slugs or account id.
    const text = JSON.stringify(actual);
    for (const { id, slug, accountId } of seeded.links.values()) {
      if (accountId !== seeded.accountB) continue;
      expect(text).not.toContain(id);
      expect(text).not.toContain(slug);
    }
    expect(text).not.toContain(seeded.accountB);
  });

  const others = DOCS.flatMap(({ file, text }) =>
    sqlBlocks(text)
      .filter((sql) => !questions.some((q) => q.sql === sql) && !setup.includes(sql))
      .map((sql) => [`${file}: ${sql.split('\n')[0]}`, sql]),
  );

  it.each(others)('runs: %s', async (_first, sql) => {
    const result = await clickhouse.query({
      query: sql.replace(/;$/, ''),
      query_params: { link: link('spring-one').id, account: seeded.accountA, from: '2026-01-01', to: '2026-12-31' },
      format: 'JSONEachRow',
    });
    expect(Array.isArray(await result.json())).toBe(true);
  });

  it('documents every column of every table', async () => {
    const columns = await (
      await clickhouse.query({
        query: `SELECT table, name FROM system.columns
                 WHERE database = currentDatabase() AND table NOT IN ('schema_migrations', 'link_export')
                   AND table NOT IN (SELECT name FROM system.tables
                                      WHERE database = currentDatabase() AND engine = 'MaterializedView')`,
        format: 'JSONEachRow',
      })
    ).json<{ table: string; name: string }>();
    const tables = new Set(columns.map((c) => c.table));
    for (const table of ['clicks', 'link_daily', 'link_uniques', 'account_daily', 'account_daily_breakdown']) {
      expect(tables).toContain(table);
    }
    for (const { table, name } of columns) {
      expect(clickhouseDoc).toContain(`\`${table}\``);
      expect(clickhouseDoc).toContain(`| \`${name}\``);
    }
  });
});

import { parse as parseCsv } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * The raw click export on the whole system (redirects, Kafka, the projector, ClickHouse through its HTTP endpoint,
 * the analytics API on a real port): two accounts' clicks side by side, each account's export in every format read
 * back with a real reader, an export cut off mid-stream and continued from its last complete row, and hostile
 * parameters answered with the error body.
 */
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const COLUMNS = [
  'event_id',
  'link_id',
  'slug',
  'clicked_at',
  'visitor_hash',
  'referrer',
  'country',
  'device',
  'browser',
  'os',
  'trigger',
  'cursor',
];

type Row = Record<string, unknown> & { event_id: string; slug: string; cursor: string };

let system: LinkSystem;
let base: string;
/** Each account's clicks, as slugs clicked (one entry a click). */
const clicked: Record<'pro' | 'free', string[]> = { pro: [], free: [] };

const keyOf = (account: 'pro' | 'free') => (account === 'pro' ? system.proKey : system.freeKey);
const exportUrl = (query: string) => `${base}/api/v1/clicks/export?${query}`;
const fetchExport = (account: 'pro' | 'free', query: string, signal?: AbortSignal) =>
  fetch(exportUrl(query), { headers: { authorization: `Bearer ${keyOf(account)}` }, signal });

const ndjson = (text: string): Row[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Row);

async function read(account: 'pro' | 'free', query: string): Promise<Row[]> {
  const res = await fetchExport(account, query);
  expect(res.status).toBe(200);
  return ndjson(await res.text());
}

beforeAll(async () => {
  system = await startLinkSystem();
  base = await system.app.listen({ host: '127.0.0.1', port: 0 });

  const links: [account: 'pro' | 'free', slug: string, tag: string | undefined, clicks: number][] = [
    ['pro', 'export-pro-a', 'spring', 23],
    ['pro', 'export-pro-b', undefined, 17],
    ['free', 'export-free-a', 'spring', 12],
  ];
  for (const [account, slug, tag, clicks] of links) {
    const made = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${keyOf(account)}`, 'content-type': 'application/json' },
      payload: { url: `https://example.com/${slug}`, customSlug: slug, ...(tag ? { tag } : {}) },
    });
    expect(made.statusCode).toBe(201);
    for (let i = 0; i < clicks; i++) {
      const res = await system.app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: {
          'user-agent': CHROME,
          'x-forwarded-for': `203.0.113.${i + 1}`,
          referer: 'https://news.example.org/x',
        },
      });
      expect(res.statusCode).toBe(302);
      clicked[account].push(slug);
    }
  }
  await system.flushClicks();
  // Waited for in ClickHouse itself: an export is counted against the plan's exports an hour.
  const total = clicked.pro.length + clicked.free.length;
  await eventually(
    async () => {
      const result = await system.infra.clickhouse.query({
        query: "SELECT count() AS n FROM clicks WHERE startsWith(slug, 'export-')",
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ n: number }>();
      return row?.n === total ? true : undefined;
    },
    60_000,
    'the clicks in ClickHouse',
  );
  // The tags too: the export by tag reads them in ClickHouse (link_tags), projected beside the clicks.
  await eventually(
    async () => {
      const result = await system.infra.clickhouse.query({
        query: "SELECT count() AS n FROM link_tags WHERE tag = 'spring'",
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ n: number }>();
      return Number(row?.n) === 2 ? true : undefined;
    },
    60_000,
    'the tags in ClickHouse',
  );
}, 120_000);

afterAll(async () => {
  await system?.close();
});

describe('GET /api/v1/clicks/export', () => {
  it('exports each account’s clicks and none of the other’s, in NDJSON, CSV and Parquet alike', async () => {
    const exported: Record<string, Row[]> = {};
    for (const account of ['pro', 'free'] as const) {
      const json = await fetchExport(account, 'format=ndjson');
      expect(json.headers.get('content-type')).toBe('application/x-ndjson');
      expect(json.headers.get('content-disposition')).toMatch(
        /^attachment; filename="clicks-\d{8}T\d{6}Z-\d{8}T\d{6}Z\.ndjson"$/,
      );
      const rows = ndjson(await json.text());

      const csv = await fetchExport(account, 'format=csv');
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const csvRows = parseCsv<Row>(await csv.text(), { columns: true });

      const parquet = await fetchExport(account, 'format=parquet');
      expect(parquet.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      const parquetRows = (await parquetReadObjects({ file: await parquet.arrayBuffer() })) as Row[];

      for (const set of [rows, csvRows, parquetRows]) {
        expect(Object.keys(set[0] ?? {})).toEqual(COLUMNS);
        expect(set.map((r) => r.slug).sort()).toEqual([...clicked[account]].sort());
        expect(new Set(set.map((r) => r.event_id)).size).toBe(clicked[account].length);
      }
      // One order and the same rows in every format.
      expect(csvRows.map((r) => r.cursor)).toEqual(rows.map((r) => r.cursor));
      expect(parquetRows.map((r) => r.cursor)).toEqual(rows.map((r) => r.cursor));
      const first = rows[0]!;
      expect(first).toMatchObject({
        visitor_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        clicked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        referrer: 'https://news.example.org',
        device: 'desktop',
        browser: 'Chrome',
        trigger: 'link',
      });
      expect(parquetRows[0]?.clicked_at).toEqual(new Date(first.clicked_at as string));
      exported[account] = rows;
    }
    const proIds = new Set(exported.pro!.map((r) => r.event_id));
    expect(exported.free!.filter((r) => proIds.has(r.event_id))).toEqual([]);
  });

  it('narrows to a slug or a tag, of the caller’s links only', async () => {
    expect((await read('pro', 'slug=export-pro-b')).map((r) => r.slug)).toEqual(Array(17).fill('export-pro-b'));
    expect(await read('pro', 'slug=export-free-a')).toEqual([]);
    expect((await read('pro', 'tag=spring')).map((r) => r.slug)).toEqual(Array(23).fill('export-pro-a'));
    expect((await read('free', 'tag=spring')).map((r) => r.slug)).toEqual(Array(12).fill('export-free-a'));
  });

  it('continues an export cut off mid-stream from its last complete row: every click once', async () => {
    const all = await read('pro', 'format=ndjson');
    for (const format of ['ndjson', 'csv'] as const) {
      const abort = new AbortController();
      const res = await fetchExport('pro', `format=${format}`, abort.signal);
      const reader = res.body!.getReader();
      let text = '';
      const decoder = new TextDecoder();
      // Cut in the middle of a row, as a dropped connection does.
      while (text.length < 3000) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      abort.abort();
      text = text.slice(0, 2500);
      const complete = text.slice(0, text.lastIndexOf('\n') + 1);
      const kept = format === 'ndjson' ? ndjson(complete) : parseCsv<Row>(complete, { columns: true });
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(all.length);

      const rest = await read('pro', `format=ndjson&after=${kept.at(-1)!.cursor}`);
      const union = [...kept, ...rest].map((r) => r.event_id);
      expect(union).toHaveLength(all.length);
      expect(union).toEqual(all.map((r) => r.event_id));
    }
  });

  it('pages a Parquet export with limit, each file continuing after the last', async () => {
    const all = await read('pro', 'format=ndjson');
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 10 && seen.length < all.length; page++) {
      const res = await fetchExport('pro', `format=parquet&limit=15${after}`);
      const rows = (await parquetReadObjects({ file: await res.arrayBuffer() })) as Row[];
      seen.push(...rows.map((r) => r.event_id));
      after = `&after=${rows.at(-1)?.cursor}`;
    }
    expect(seen).toEqual(all.map((r) => r.event_id));
  });

  it('positions by another account’s cursor without ever reading that account’s clicks', async () => {
    const freeRows = await read('free', 'format=ndjson');
    const pro = await read('pro', `after=${freeRows[0]!.cursor}`);
    expect(pro.every((r) => r.slug.startsWith('export-pro-'))).toBe(true);
  });

  it.each([
    ['format=xml', 400, 'invalid_export_format'],
    ['from=2026-11-01', 400, 'invalid_time'],
    ['from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 400, 'invalid_time'],
    ['after=1%27%20OR%201%3D1', 400, 'invalid_export_cursor'],
    ['limit=-1', 400, 'invalid_limit'],
    ['slug=%27%3B%20DROP%20TABLE%20clicks', 400, 'invalid_slug'],
  ])('answers %s with %i and the error body', async (query, status, code) => {
    const res = await fetchExport('pro', query);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({
      error: expect.any(String),
      code,
      detail: expect.any(String),
      field: expect.any(String),
    });
  });

  it('keeps the free plan to its last 30 days', async () => {
    const from = new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString();
    const res = await fetchExport('free', `from=${from}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'plan_upgrade_required', field: 'from' });
    const pro = await fetchExport('pro', `from=${from}`);
    expect(pro.status).toBe(200);
    // A body left unread keeps its connection busy, and the server's close waits on it.
    await pro.body?.cancel();
  });

  // Last: it changes the links the tests above read.
  it('follows a link’s tag change and leaves a deleted link out of its tag', async () => {
    const api = (method: 'PATCH' | 'DELETE', slug: string, payload?: object) =>
      system.app.inject({
        method,
        url: `/api/v1/links/${slug}`,
        headers: {
          authorization: `Bearer ${keyOf('pro')}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        ...(payload ? { payload } : {}),
      });
    // Waited for in ClickHouse (each export counts against the plan's exports an hour): rows of link_tags.
    const projected = (where: string, what: string) =>
      eventually(
        async () => {
          const query = `SELECT count() AS n FROM link_tags FINAL WHERE ${where}`;
          const [row] = await (
            await system.infra.clickhouse.query({ query, format: 'JSONEachRow' })
          ).json<{ n: number }>();
          return Number(row?.n) > 0 ? true : undefined;
        },
        30_000,
        what,
      );
    const bySlug = async () => {
      const counts = new Map<string, number>();
      for (const r of await read('pro', 'tag=spring')) counts.set(r.slug, (counts.get(r.slug) ?? 0) + 1);
      return counts;
    };
    expect((await api('PATCH', 'export-pro-b', { tag: 'spring' })).statusCode).toBe(200);
    await projected("version = 2 AND tag = 'spring'", 'the tag change');
    expect(await bySlug()).toEqual(
      new Map([
        ['export-pro-a', 23],
        ['export-pro-b', 17],
      ]),
    );
    expect((await api('DELETE', 'export-pro-a')).statusCode).toBe(204);
    await projected('deleted = 1', 'the deletion');
    expect(await bySlug()).toEqual(new Map([['export-pro-b', 17]]));
    // The free account's link of the same tag is its own.
    expect((await read('free', 'tag=spring')).map((r) => r.slug)).toEqual(Array(12).fill('export-free-a'));
  });
});

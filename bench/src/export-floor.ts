/**
 * `node bench/dist/export-floor.js [--clicks N] [--runs R]`: where the export's rows a second are lost, layer by
 * layer, on the export part's data (10 M clicks of one account). Each format is written by chdb alone into /dev/null
 * (no Node stream, no HTTP), then read in-process through chdb's stream (the local endpoint's path, no HTTP), then
 * through the local endpoint with curl into /dev/null. The service's own rate is the export part's (`npm run bench --
 * export`). A scratch data directory is used, so the shared endpoint's is never touched. Figures go to stdout only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Session } from 'chdb';

const ROOT = join(__dirname, '..', '..');
const ACCOUNT = '00000000-0000-4000-8000-00000000abcd';

/** The export's statement as exportStatement writes it for a whole account, without the FORMAT clause. */
const EXPORT_SELECT = `SELECT
  toString(event_id) AS event_id, toString(link_id) AS link_id, slug, clicked_at,
  toString(visitor_hash) AS visitor_hash, toString(referrer) AS referrer, toString(country) AS country,
  toString(device) AS device, toString(browser) AS browser, toString(os) AS os, toString(trigger) AS trigger,
  concat(toString(link_id), '.', toString(toUnixTimestamp64Milli(clicked_at)), '.', toString(event_id)) AS cursor
FROM (
  SELECT event_id, link_id, slug, clicked_at, visitor_hash, referrer, country, device, browser, os, trigger
  FROM clicks
  WHERE account_id = '${ACCOUNT}' AND clicked_at >= '2000-01-01 00:00:00' AND clicked_at < '2100-01-01 00:00:00'
  ORDER BY link_id, clicked_at, event_id
)`;

/** The export's settings (streamExport), as SET statements. */
const SETTINGS: Record<string, string> = {
  date_time_output_format: "'iso'",
  output_format_parquet_row_group_size: '100000',
  output_format_parquet_compression_method: "'snappy'",
  optimize_read_in_order: '1',
};

const FORMATS = { ndjson: 'JSONEachRow', parquet: 'Parquet' } as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { clicks: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '3' } },
  });
  const clicks = Number(values.clicks);
  const runs = Number(values.runs);
  const dir = await mkdtemp(join(tmpdir(), 'export-floor-'));
  const line = (what: string, seconds: number) =>
    console.log(
      `${what.padEnd(48)} ${(clicks / seconds).toFixed(0).padStart(10)} rows/s  ${seconds.toFixed(2)} s  load ${loadavg()[0]!.toFixed(2)}`,
    );
  try {
    const session = new Session(join(dir, 'data'));
    const schema = await readFile(join(ROOT, 'libs/clickhouse/migrations/0001_clicks.sql'), 'utf8');
    const create = /CREATE TABLE IF NOT EXISTS clicks[\s\S]*?;/.exec(schema)?.[0];
    if (!create) throw new Error('no clicks table in migration 0001');
    const triggers = await readFile(join(ROOT, 'libs/clickhouse/migrations/0004_click_triggers.sql'), 'utf8');
    await session.queryAsync(create);
    for (const alter of triggers.match(/ALTER TABLE clicks[\s\S]*?;/g) ?? []) await session.queryAsync(alter);
    await session.queryAsync(`INSERT INTO clicks
      SELECT generateUUIDv4(number), toUUID(concat('00000000-0000-4000-8000-', leftPad(toString(number % 100 + 1), 12, '0'))),
        '${ACCOUNT}', concat('export-', toString(number % 100)), now64(3) - toIntervalMillisecond(number),
        lower(hex(SHA256(toString(number % 200000)))),
        ['Direct', 'https://news.ycombinator.com', 'https://www.google.com', 'https://t.co'][1 + number % 4],
        ['US', 'GB', 'DE', 'FR', 'NL', 'XX'][1 + intDiv(number, 7) % 6], ['desktop', 'mobile', 'tablet'][1 + number % 3],
        ['Chrome', 'Safari', 'Firefox', 'Edge'][1 + intDiv(number, 3) % 4], ['Windows', 'iOS', 'Android', 'macOS', 'Linux'][1 + number % 5],
        0, number, if(number % 10 = 0, 'qr', 'link')
      FROM numbers(${clicks}) SETTINGS max_insert_block_size = 1000000`);
    await session.queryAsync('OPTIMIZE TABLE clicks FINAL');
    for (const [name, value] of Object.entries(SETTINGS)) await session.queryAsync(`SET ${name} = ${value}`);

    for (let run = 0; run < runs; run++) {
      for (const [name, format] of Object.entries(FORMATS)) {
        let t = performance.now();
        await session.queryAsync(`${EXPORT_SELECT} INTO OUTFILE '/dev/null' APPEND FORMAT ${format}`);
        line(`chdb alone, ${name}, into /dev/null`, (performance.now() - t) / 1000);
        t = performance.now();
        await session.queryAsync(`SELECT * FROM clicks INTO OUTFILE '/dev/null' APPEND FORMAT ${format}`);
        line(`chdb alone, ${name}, SELECT * (no conversions)`, (performance.now() - t) / 1000);
        if (format === 'JSONEachRow') {
          t = performance.now();
          let bytes = 0;
          for await (const chunk of session.queryStream(`${EXPORT_SELECT}`, { format })) bytes += chunk.raw().length;
          line(`chdb stream in Node, ${name} (${(bytes / 2 ** 20).toFixed(0)} MiB)`, (performance.now() - t) / 1000);
        }
      }
    }
    session.close();

    // The same data through the local endpoint, read by curl.
    const port = String(18_000 + Math.floor(Math.random() * 1000));
    const server = spawn(
      process.execPath,
      [join(ROOT, 'libs/chdb-server/dist/cli.js'), '--path', join(dir, 'data'), '--port', port],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 100; i++) {
        try {
          execFileSync('curl', ['-sf', `http://127.0.0.1:${port}/ping`], { stdio: 'ignore' });
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      const settings = Object.entries(SETTINGS)
        .map(([name, value]) => `${name}=${encodeURIComponent(value.replace(/'/g, ''))}`)
        .join('&');
      for (let run = 0; run < runs; run++) {
        for (const [name, format] of Object.entries(FORMATS)) {
          const t = performance.now();
          const out = execFileSync(
            'curl',
            [
              '-sS',
              '-o',
              '/dev/null',
              '-w',
              '%{http_code} %{size_download}',
              '--data-binary',
              `${EXPORT_SELECT} FORMAT ${format}`,
              `http://127.0.0.1:${port}/?${settings}`,
            ],
            { encoding: 'utf8', maxBuffer: 1 << 20 },
          );
          const [status, size] = out.split(' ');
          if (status !== '200') throw new Error(`curl ${name}: HTTP ${status}`);
          line(`endpoint + curl, ${name} (${(Number(size) / 2 ** 20).toFixed(0)} MiB)`, (performance.now() - t) / 1000);
        }
      }
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

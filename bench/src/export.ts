import { readFileSync } from 'node:fs';
import { round } from './measure';
import type { BenchStack } from './stack';

export interface ExportFormatResult {
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** The analytics process's resident memory before the export, and its most during it (sampled every 100 ms). */
  rssBeforeMiB: number;
  rssMaxMiB: number;
  rssGrowthMiB: number;
}

export interface ExportResult {
  clicks: number;
  links: number;
  loadSeconds: number;
  formats: Record<'ndjson' | 'parquet', ExportFormatResult>;
}

function rssBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line?.[1] === undefined ? NaN : Number(line[1]) * 1024;
}

/**
 * `GET /api/v1/clicks/export` of one account holding `clicks` clicks over `links` links (straight into the `clicks`
 * table, as the analytics part loads them): each format read whole by a client as fast as it takes it, the rows a
 * second counted by the client, and the analytics process's memory sampled during it. Flat memory is the goal: the
 * service pipes ClickHouse's output and decodes none of it.
 */
export async function benchExport(
  stack: BenchStack,
  options: { clicks: number; links: number },
): Promise<ExportResult> {
  const started = performance.now();
  await stack.clickhouse.command({
    query: `
      INSERT INTO clicks (
        event_id, link_id, account_id, slug, clicked_at, visitor_hash, referrer, country, device, browser, os, source_partition,
        source_offset, trigger
      )
      SELECT
        generateUUIDv4(number) AS event_id,
        toUUID(concat('00000000-0000-4000-8000-', leftPad(toString(number % {links:UInt64} + 1), 12, '0'))) AS link_id,
        {account:UUID} AS account_id,
        concat('export-', toString(number % {links:UInt64})) AS slug,
        now64(3) - toIntervalMillisecond(number) AS clicked_at,
        lower(hex(SHA256(toString(number % 200000)))) AS visitor_hash,
        ['Direct', 'https://news.ycombinator.com', 'https://www.google.com', 'https://t.co'][1 + number % 4] AS referrer,
        ['US', 'GB', 'DE', 'FR', 'NL', 'XX'][1 + intDiv(number, 7) % 6] AS country,
        ['desktop', 'mobile', 'tablet'][1 + number % 3] AS device,
        ['Chrome', 'Safari', 'Firefox', 'Edge'][1 + intDiv(number, 3) % 4] AS browser,
        ['Windows', 'iOS', 'Android', 'macOS', 'Linux'][1 + number % 5] AS os,
        0 AS source_partition,
        number AS source_offset,
        if(number % 10 = 0, 'qr', 'link') AS trigger
      FROM numbers({clicks:UInt64})`,
    query_params: { account: stack.accountId, clicks: options.clicks, links: options.links },
    clickhouse_settings: { max_insert_block_size: '1000000' },
  });
  const loadSeconds = round((performance.now() - started) / 1000);

  const analytics = await stack.start('analytics');
  const formats = {} as ExportResult['formats'];
  try {
    for (const format of ['ndjson', 'parquet'] as const) {
      const before = rssBytes(analytics.pid);
      let most = before;
      const sampler = setInterval(() => {
        most = Math.max(most, rssBytes(analytics.pid));
      }, 100);
      const t = performance.now();
      let bytes = 0;
      let rows = 0;
      try {
        const res = await fetch(`${analytics.url}/api/v1/clicks/export?format=${format}`, {
          headers: { authorization: `Bearer ${stack.key}` },
        });
        if (res.status !== 200 || !res.body)
          throw new Error(`export ${format}: HTTP ${res.status} ${await res.text()}`);
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          // indexOf is memchr: a byte-by-byte loop here counted at about 70 MB/s, a ceiling below the goal's rate.
          if (format === 'ndjson') {
            for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) rows++;
          }
        }
      } finally {
        clearInterval(sampler);
      }
      const seconds = (performance.now() - t) / 1000;
      // A Parquet file is not counted row by row here: its rows are those the NDJSON export counted.
      if (format === 'parquet') rows = formats.ndjson.rows;
      else if (rows !== options.clicks) throw new Error(`export ndjson: ${rows} rows, expected ${options.clicks}`);
      formats[format] = {
        rows,
        bytes,
        seconds: round(seconds),
        rowsPerSecond: Math.round(rows / seconds),
        rssBeforeMiB: round(before / 2 ** 20),
        rssMaxMiB: round(most / 2 ** 20),
        rssGrowthMiB: round((most - before) / 2 ** 20),
      };
    }
  } finally {
    await analytics.stop();
  }
  return { clicks: options.clicks, links: options.links, loadSeconds, formats };
}

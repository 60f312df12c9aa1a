import { percentiles, round } from './measure';
import { createLinks, scalar, type BenchStack } from './stack';

export interface AnalyticsResult {
  clicks: number;
  days: number;
  loadSeconds: number;
  ranges: Record<string, { p50Ms: number; p99Ms: number; maxMs: number; requests: number; wholeLife: boolean }>;
  /** Active parts per visitor table when measured: what a visitor count reads depends on it. */
  parts: { linkVisitors: number; linkUniques: number };
}

const RANGES = ['7d', '30d', '90d', 'all'] as const;

/**
 * The analytics endpoint for one link holding `clicks` clicks spread over
 * `days` days (loadBigLink), each range then read sequentially, as a dashboard
 * does (readRanges).
 */
export async function benchAnalytics(
  stack: BenchStack,
  options: { clicks: number; days: number; visitors: number; requests: number },
): Promise<AnalyticsResult> {
  const { slug, loadSeconds, parts } = await loadBigLink(stack, options);
  const analytics = await stack.start('analytics');
  const ranges = await readRanges(analytics.url, stack.key, slug, options);
  await analytics.stop();
  return { clicks: options.clicks, days: options.days, loadSeconds, ranges, parts };
}

/**
 * One link holding `clicks` clicks spread over `days` days. The clicks go
 * straight into the `clicks` fact table with one INSERT … SELECT, so the
 * materialized views fill exactly as they do from the projector; the link's
 * creation is moved back to the first day so `all` covers them.
 */
export async function loadBigLink(
  stack: BenchStack,
  options: { clicks: number; days: number; visitors: number },
): Promise<{ slug: string; loadSeconds: number; parts: AnalyticsResult['parts'] }> {
  const writeApi = await stack.start('write-api');
  const created = [...(await createLinks(writeApi.url, stack.key, 1, 'big'))][0];
  if (!created) throw new Error('the benchmark link was not created');
  const [slug, link] = created;
  await writeApi.stop();
  for (const table of ['links', 'slug_claims']) {
    await stack.pool.query(`UPDATE ${table} SET created_at = now() - make_interval(days => $2) WHERE slug = $1`, [
      slug,
      options.days - 1,
    ]);
  }

  const started = performance.now();
  await stack.clickhouse.command({
    query: `
      INSERT INTO clicks (
        event_id, link_id, account_id, slug, clicked_at, visitor_hash, referrer, country, device, browser, os, source_partition,
        source_offset, trigger
      )
      SELECT
        generateUUIDv4(number) AS event_id,
        {link:UUID} AS link_id,
        {account:UUID} AS account_id,
        {slug:String} AS slug,
        now64(3) - toIntervalMillisecond(intDiv(number * {span:UInt64}, {clicks:UInt64})) AS clicked_at,
        lower(hex(SHA256(toString(number % {visitors:UInt64})))) AS visitor_hash,
        ['Direct', 'https://news.ycombinator.com', 'https://www.google.com', 'https://t.co', 'https://www.reddit.com',
         'https://github.com', 'https://www.linkedin.com', 'https://duckduckgo.com', 'https://www.bing.com',
         'https://lobste.rs', 'https://mastodon.social', 'https://example.org'][1 + number % 12] AS referrer,
        ['US', 'GB', 'DE', 'FR', 'NL', 'JP', 'BR', 'IN', 'CA', 'AU', 'ES', 'XX'][1 + intDiv(number, 7) % 12] AS country,
        ['desktop', 'mobile', 'tablet'][1 + number % 3] AS device,
        ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera', 'Brave', 'Vivaldi', 'Yandex', 'UC Browser',
         'DuckDuckGo', 'Arc'][1 + intDiv(number, 3) % 12] AS browser,
        ['Windows', 'iOS', 'Android', 'macOS', 'Linux'][1 + number % 5] AS os,
        0 AS source_partition,
        number AS source_offset,
        if(number % 10 = 0, 'qr', 'link') AS trigger
      FROM numbers({clicks:UInt64})`,
    query_params: {
      link: link.id,
      account: stack.accountId,
      slug,
      span: (options.days - 1) * 86_400_000,
      clicks: options.clicks,
      visitors: options.visitors,
    },
    clickhouse_settings: { max_insert_block_size: '1000000' },
  });
  const loadSeconds = round((performance.now() - started) / 1000);
  // A live table's parts were merged long ago; measure that state, not the merges of a fresh bulk load.
  for (let i = 0; i < 120; i++) {
    const merging = await scalar(
      stack.clickhouse,
      'SELECT count() AS n FROM system.merges WHERE database = currentDatabase()',
    );
    if (merging === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  const partsOf = (table: string) =>
    scalar(
      stack.clickhouse,
      `SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`,
    );
  const parts = { linkVisitors: await partsOf('link_visitors'), linkUniques: await partsOf('link_uniques') };
  return { slug, loadSeconds, parts };
}

/** Each range of the link's analytics read `requests` times in a row, after ten reads that warm the caches. */
export async function readRanges(
  analyticsUrl: string,
  key: string,
  slug: string,
  options: { clicks: number; days: number; visitors: number; requests: number },
): Promise<AnalyticsResult['ranges']> {
  const ranges: AnalyticsResult['ranges'] = {};
  for (const range of RANGES) {
    const read = async () => {
      const t = performance.now();
      const res = await fetch(`${analyticsUrl}/api/v1/links/${slug}/analytics?range=${range}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { totalClicks?: number; uniqueVisitors?: number };
      if (res.status !== 200) throw new Error(`analytics ${range}: HTTP ${res.status} ${JSON.stringify(body)}`);
      if (range === 'all' && body.totalClicks !== options.clicks) {
        throw new Error(`analytics all: ${body.totalClicks} clicks, expected ${options.clicks}`);
      }
      if (range === 'all' && body.uniqueVisitors !== options.visitors) {
        throw new Error(`analytics all: ${body.uniqueVisitors} visitors, expected ${options.visitors}`);
      }
      return performance.now() - t;
    };
    for (let i = 0; i < Math.min(10, options.requests); i++) await read(); // warm caches, as a live dashboard has
    const samples: number[] = [];
    for (let i = 0; i < options.requests; i++) samples.push(await read());
    const p = percentiles(samples);
    // The link was created `days - 1` days ago: a range of `days` days or more holds its whole
    // life, and the API counts its visitors as for `all`.
    const wholeLife = range === 'all' || Number.parseInt(range, 10) >= options.days;
    ranges[range] = { p50Ms: p.p50, p99Ms: p.p99, maxMs: p.max, requests: p.n, wholeLife };
  }
  return ranges;
}

import { percentiles, round } from './measure';
import { scalar, type BenchStack } from './stack';

export interface AccountAnalyticsResult {
  clicks: number;
  links: number;
  tags: number;
  days: number;
  loadSeconds: number;
  /** `groupBy range` → the latency of `GET /api/v1/analytics?groupBy=…&range=…&limit=100`, read sequentially. */
  reads: Record<string, { p50Ms: number; p99Ms: number; maxMs: number; requests: number; rows: number }>;
  /** `groupBy range` → the answer of a read that failed (its figures are then missing from `reads`). */
  failures: Record<string, string>;
}

class ReadFailed extends Error {}

const CLICKS_A_STATEMENT = 1_000_000;

const GROUP_BYS = ['link', 'tag', 'country', 'referrer', 'device', 'browser', 'day'] as const;
const RANGES = ['7d', '30d', '90d', 'all'] as const;

/** The bench's link ids: the n-th link (1-based) of the account, as the clicks and the links table both name it. */
const LINK_ID = (n: string) => `('00000000-0000-4000-8000-' || lpad(${n}::text, 12, '0'))::uuid`;

/**
 * `GET /api/v1/analytics` of one account holding `clicks` clicks over `links` links and `days` days, every grouping
 * over every range. The links go into Postgres with one INSERT … SELECT each (committed claims and the projection, as
 * the list part loads them), one in `tags + 1` untagged and the others under `tags` tags; the clicks go straight into
 * the `clicks` table with one INSERT … SELECT, so the account aggregates fill as they do from the projector, and the
 * links' tags into `link_tags` as the projector writes them. Each read
 * is then repeated sequentially after a warm-up, as a dashboard does.
 */
export async function benchAccountAnalytics(
  stack: BenchStack,
  options: { clicks: number; links: number; tags: number; days: number; visitors: number; requests: number },
): Promise<AccountAnalyticsResult> {
  const started = performance.now();
  await stack.pool.query(
    `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, state)
     SELECT 'acct-' || i, ${LINK_ID('i')}, $1, 'https://example.com/acct/' || i,
            CASE WHEN i % ($3 + 1) = 0 THEN NULL ELSE 'tag-' || (i % ($3 + 1)) END,
            now() - make_interval(days => $4), 'committed'
       FROM generate_series(1, $2::int) AS i`,
    [stack.accountId, options.links, options.tags, options.days],
  );
  await stack.pool.query(
    `INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset)
     SELECT slug, link_id, account_id, destination_url, tag, created_at, gen_random_uuid(), 0, list_seq
       FROM slug_claims WHERE slug LIKE 'acct-%'`,
  );
  await stack.pool.query('VACUUM ANALYZE links');
  // The links' tags as the projector writes them from LinkCreated (the links above skipped the topic).
  await stack.clickhouse.command({
    query: `INSERT INTO link_tags (account_id, link_id, deleted, tag, version)
            SELECT {account:UUID}, toUUID(concat('00000000-0000-4000-8000-', leftPad(toString(number), 12, '0'))), 0,
                   if(number % ({tags:UInt64} + 1) = 0, '', concat('tag-', toString(number % ({tags:UInt64} + 1)))), 1
              FROM numbers(1, {links:UInt64})`,
    query_params: { account: stack.accountId, tags: options.tags, links: options.links },
  });
  // A million clicks a statement: one insert of 10 million, its views filling 9 million link-days, outlasted the
  // client's timeout on a loaded machine.
  for (let first = 0; first < options.clicks; first += CLICKS_A_STATEMENT) {
    await insertClicks(stack, options, first, Math.min(CLICKS_A_STATEMENT, options.clicks - first));
  }
  // A live table's parts were merged long ago; measure that state, not the merges of a fresh bulk load.
  for (let i = 0; i < 120; i++) {
    const merging = await scalar(
      stack.clickhouse,
      'SELECT count() AS n FROM system.merges WHERE database = currentDatabase()',
    );
    if (merging === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const loadSeconds = round((performance.now() - started) / 1000);

  const analytics = await stack.start('analytics');
  const reads: AccountAnalyticsResult['reads'] = {};
  const failures: AccountAnalyticsResult['failures'] = {};
  try {
    for (const groupBy of GROUP_BYS) {
      for (const range of RANGES) {
        const read = async () => {
          const t = performance.now();
          const res = await fetch(`${analytics.url}/api/v1/analytics?groupBy=${groupBy}&range=${range}&limit=100`, {
            headers: { authorization: `Bearer ${stack.key}` },
          });
          const body = (await res.json()) as { totalClicks?: number; rows?: unknown[] };
          if (res.status !== 200 || !body.rows) throw new ReadFailed(`HTTP ${res.status} ${JSON.stringify(body)}`);
          if (range === 'all' && body.totalClicks !== options.clicks) {
            throw new Error(`analytics ${groupBy} all: ${body.totalClicks} clicks, expected ${options.clicks}`);
          }
          return { ms: performance.now() - t, rows: body.rows.length };
        };
        try {
          await read();
        } catch (e) {
          // A grouping the service cannot answer is a finding of the run, not its end.
          if (!(e instanceof ReadFailed)) throw e;
          failures[`${groupBy} ${range}`] = e.message.slice(0, 300);
          continue;
        }
        for (let i = 0; i < Math.min(10, options.requests); i++) await read(); // warm, as a live dashboard is
        const samples: number[] = [];
        let rows = 0;
        for (let i = 0; i < options.requests; i++) {
          const r = await read();
          samples.push(r.ms);
          rows = r.rows;
        }
        const p = percentiles(samples);
        reads[`${groupBy} ${range}`] = { p50Ms: p.p50, p99Ms: p.p99, maxMs: p.max, requests: p.n, rows };
      }
    }
  } finally {
    await analytics.stop();
  }
  return {
    clicks: options.clicks,
    links: options.links,
    tags: options.tags,
    days: options.days,
    loadSeconds,
    reads,
    failures,
  };
}

/** Clicks number `first` to `first + count - 1` of the account's, spread as the whole load spreads them. */
async function insertClicks(
  stack: BenchStack,
  options: { clicks: number; links: number; days: number; visitors: number },
  first: number,
  count: number,
): Promise<void> {
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
        concat('acct-', toString(number % {links:UInt64} + 1)) AS slug,
        now64(3) - toIntervalMillisecond(intDiv(number * {span:UInt64}, {clicks:UInt64})) AS clicked_at,
        lower(hex(SHA256(toString(number % {visitors:UInt64})))) AS visitor_hash,
        ['Direct', 'https://news.ycombinator.com', 'https://www.google.com', 'https://t.co', 'https://www.reddit.com',
         'https://github.com', 'https://www.linkedin.com', 'https://duckduckgo.com'][1 + intDiv(number, 5) % 8] AS referrer,
        ['US', 'GB', 'DE', 'FR', 'NL', 'JP', 'BR', 'IN', 'CA', 'AU', 'ES', 'XX'][1 + intDiv(number, 7) % 12] AS country,
        ['desktop', 'mobile', 'tablet'][1 + intDiv(number, 11) % 3] AS device,
        ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera'][1 + intDiv(number, 3) % 6] AS browser,
        ['Windows', 'iOS', 'Android', 'macOS', 'Linux'][1 + number % 5] AS os,
        0 AS source_partition,
        number AS source_offset,
        if(number % 10 = 0, 'qr', 'link') AS trigger
      FROM numbers({first:UInt64}, {count:UInt64})`,
    query_params: {
      account: stack.accountId,
      links: options.links,
      clicks: options.clicks,
      span: (options.days - 1) * 86_400_000,
      visitors: options.visitors,
      first,
      count,
    },
    clickhouse_settings: { max_insert_block_size: '1000000' },
  });
}

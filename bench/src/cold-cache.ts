import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CacheMemory } from './cache-memory';
import { destinationOf, LINKS_SQL, SLUG_PREFIX } from './cold-cache-links';
import { round, runLoad } from './measure';
import { CHROME_UA } from './redirect';
import { seededRandom } from './seeded-random';
import type { BenchStack } from './stack';
import { slugOfRank, zipfSampler } from './zipf';
import type { LoadOptions, LoadSummary } from './load';

export interface ColdCacheOptions {
  /** Links in Postgres. */
  links: number;
  /** REDIRECT_CACHE_SIZE of the redirector. */
  cacheSize: number;
  /** Of the Zipf law of slug popularity. */
  exponent: number;
  /** The warm comparison: this many of the most popular slugs, all cached. */
  warmSlugs: number;
  durationSeconds: number;
  /** warm, Zipf, warm, Zipf …: how many runs of each. */
  rounds: number;
  connections: number;
}

interface Run {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ColdCacheResult {
  links: number;
  cacheSize: number;
  exponent: number;
  /** Both tables filled, analysed, in seconds. */
  loadSeconds: number;
  /** slug_claims and links with their indexes. */
  tablesGiB: number;
  /** Requests that filled the cache, every one a miss. */
  fill: Run & { requests: number; seconds: number; zipfDraws: number };
  runs: (Run & { kind: 'warm' | 'zipf' })[];
  warm: Run;
  zipf: Run;
  throughputRatio: number;
  /**
   * Zipf draws offered at half the warm throughput (the goal's). autocannon
   * offers a rate as a quota per connection and second, spent as fast as
   * answers come: bursts, not an even stream.
   */
  zipfAtRate: Run & { offeredPerSecond: number; requests: number };
  /** Of the Zipf runs, by the redirector's own counters. */
  hitRatio: number;
  missesPerSecond: number;
  /** The Postgres lookups of the Zipf runs' misses, by the redirector's histogram. */
  miss: { lookups: number; meanMs: number; p50Ms: number; p99Ms: number };
  memory: CacheMemory & { redirectorRssMiB: number; redirectorHeapUsedMiB: number; cachedEntries: number };
  errors: number;
}

/**
 * A redirector whose links do not all fit in memory: `links` links in Postgres, a cache of `cacheSize`, slugs drawn by
 * a Zipf law. The cache is first filled as a long run leaves it (a Zipf stream's last `cacheSize` distinct slugs, in
 * order of their last draw). Then warm runs (the `warmSlugs` most popular, all cached) alternate with runs of fresh
 * Zipf draws, as fast as answers come; a last Zipf run is offered half the warm throughput.
 */
export async function benchColdCache(
  root: string,
  stack: BenchStack,
  options: ColdCacheOptions,
): Promise<ColdCacheResult> {
  const { links, cacheSize, exponent } = options;
  const loadSeconds = await loadLinks(stack, links);
  const tablesGiB =
    Number(
      (
        await stack.pool.query<{ bytes: string }>(
          `SELECT pg_total_relation_size('slug_claims') + pg_total_relation_size('links') AS bytes`,
        )
      ).rows[0]?.bytes,
    ) /
    2 ** 30;

  const redirector = await stack.start('redirector', { REDIRECT_CACHE_SIZE: String(cacheSize) });
  const load = (extra: Partial<LoadOptions>): Promise<LoadSummary> =>
    runLoad(root, {
      url: redirector.url,
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      paths: [],
      headers: { 'user-agent': CHROME_UA, accept: 'text/html' },
      ...extra,
    });
  let errors = 0;
  const count = (r: LoadSummary) => {
    errors += r.errors + r.timeouts + (r.requests - (r.statusCounts['302'] ?? 0));
    return { requestsPerSecond: r.requestsPerSecond, p50Ms: r.latencyP50Ms, p99Ms: r.latencyP99Ms };
  };

  // The cache as a long Zipf run leaves it.
  const lru = lruAfterZipf(links, exponent, cacheSize, 1);
  const fillFile = join(tmpdir(), `bench-cold-fill-${process.pid}.txt`);
  await writeFile(fillFile, lru.ranks.map((r) => `/${slugOfRank(r, links, SLUG_PREFIX)}`).join('\n'));
  const fillStarted = performance.now();
  const filled = await load({ pathsFile: fillFile, amount: lru.ranks.length });
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  await rm(fillFile, { force: true });
  const fill = { ...count(filled), requests: filled.requests, seconds: round(fillSeconds), zipfDraws: lru.draws };
  const afterFill = await scrape(redirector.url);

  const warmPaths = Array.from({ length: options.warmSlugs }, (_, i) => `/${slugOfRank(i + 1, links, SLUG_PREFIX)}`);
  const zipf = (seed: number) => ({ zipf: { links, exponent, seed, prefix: SLUG_PREFIX } });
  // Code paths hot, Postgres's pages in memory as in a service that has run a while.
  await load({ paths: warmPaths, durationSeconds: Math.min(3, options.durationSeconds) });
  await load({ ...zipf(2), durationSeconds: Math.min(5, options.durationSeconds) });

  const runs: ColdCacheResult['runs'] = [];
  const zipfTotals = { hits: 0, misses: 0, seconds: 0, lookups: emptyHistogram() };
  for (let i = 0; i < options.rounds; i++) {
    runs.push({ kind: 'warm', ...count(await load({ paths: warmPaths })) });
    const before = await scrape(redirector.url);
    const started = performance.now();
    const result = await load(zipf(100 + i));
    zipfTotals.seconds += (performance.now() - started) / 1000;
    const after = await scrape(redirector.url);
    runs.push({ kind: 'zipf', ...count(result) });
    zipfTotals.hits += after.hits - before.hits;
    zipfTotals.misses += after.misses - before.misses;
    addHistogram(zipfTotals.lookups, after.lookups, before.lookups);
  }
  const warmMean = mean(runs, 'warm');
  const offeredPerSecond = Math.round(warmMean.requestsPerSecond / 2);
  const atRate = await load({ ...zipf(200), ratePerSecond: offeredPerSecond });
  const zipfAtRate = { ...count(atRate), offeredPerSecond, requests: atRate.requests };
  await redirector.stop();

  const memory = await measureCacheMemory(root, cacheSize);
  const warm = warmMean;
  const cold = mean(runs, 'zipf');
  const { lookups } = zipfTotals;
  return {
    links,
    cacheSize,
    exponent,
    loadSeconds: round(loadSeconds),
    tablesGiB: round(tablesGiB),
    fill,
    runs,
    warm,
    zipf: cold,
    throughputRatio: round(cold.requestsPerSecond / warm.requestsPerSecond, 3),
    zipfAtRate,
    hitRatio: round(zipfTotals.hits / Math.max(1, zipfTotals.hits + zipfTotals.misses), 4),
    missesPerSecond: round(zipfTotals.misses / zipfTotals.seconds),
    miss: {
      lookups: lookups.count,
      meanMs: round((lookups.sum / Math.max(1, lookups.count)) * 1000, 3),
      p50Ms: round(quantile(lookups, 0.5) * 1000, 3),
      p99Ms: round(quantile(lookups, 0.99) * 1000, 3),
    },
    memory: {
      ...memory,
      cachedEntries: afterFill.entries,
      redirectorRssMiB: round(afterFill.rssBytes / 2 ** 20),
      redirectorHeapUsedMiB: round(afterFill.heapUsedBytes / 2 ** 20),
    },
    errors,
  };
}

function mean(runs: ColdCacheResult['runs'], kind: 'warm' | 'zipf'): Run {
  const mine = runs.filter((r) => r.kind === kind);
  const avg = (f: (r: Run) => number) => round(mine.reduce((s, r) => s + f(r), 0) / mine.length);
  return { requestsPerSecond: avg((r) => r.requestsPerSecond), p50Ms: avg((r) => r.p50Ms), p99Ms: avg((r) => r.p99Ms) };
}

/**
 * Straight into the committed claims and the projection, a million rows a
 * statement. Their indexes other than the slug's are dropped first and built
 * again after, from their own definitions: random inserts into three UUID
 * indexes cost about three times the load and the builds together.
 */
async function loadLinks(stack: BenchStack, links: number): Promise<number> {
  const started = performance.now();
  const client = await stack.pool.connect();
  try {
    // The list's search indexes: filled at about 75 s per million links, and no redirect reads them.
    await client.query('DROP INDEX links_slug_trgm');
    await client.query('DROP INDEX links_destination_trgm');
    const indexCount = async () =>
      Number(
        (
          await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_indexes WHERE tablename IN ('slug_claims', 'links')`,
          )
        ).rows[0]?.n,
      );
    const indexesBefore = await indexCount();
    const { rows: constraints } = await client.query<{ name: string; table: string; def: string }>(
      `SELECT conname AS name, conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS def
         FROM pg_constraint WHERE contype = 'u' AND conrelid::regclass::text IN ('slug_claims', 'links')`,
    );
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE tablename IN ('slug_claims', 'links') AND indexname NOT LIKE '%_pkey'
          AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const c of constraints) await client.query(`ALTER TABLE ${c.table} DROP CONSTRAINT ${c.name}`);
    for (const i of indexes) await client.query(`DROP INDEX ${i.name}`);
    const chunk = 1_000_000;
    for (let from = 0; from < links; from += chunk) {
      await client.query(LINKS_SQL, [stack.accountId, from, Math.min(chunk, links - from)]);
      if (links > chunk) process.stderr.write(`[bench] cold-cache: ${Math.min(links, from + chunk)} links loaded\n`);
    }
    await client.query(`SET maintenance_work_mem = '256MB'`);
    for (const i of indexes) await client.query(i.def);
    for (const c of constraints) await client.query(`ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}`);
    if ((await indexCount()) !== indexesBefore) throw new Error('cold-cache: an index was not built again');
    await client.query(`SELECT setval('slug_claims_list_seq', $1::bigint + 1)`, [links]);
    await client.query('VACUUM ANALYZE slug_claims');
    await client.query('VACUUM ANALYZE links');
  } finally {
    client.release();
  }
  const sample = Math.floor(links / 3);
  const { rows } = await stack.pool.query<{ destination_url: string }>(
    'SELECT destination_url FROM links WHERE slug = $1',
    [`${SLUG_PREFIX}${sample}`],
  );
  if (rows[0]?.destination_url !== destinationOf(sample)) {
    throw new Error(`loaded links differ from cold-cache-links.ts: ${JSON.stringify(rows[0])}`);
  }
  return (performance.now() - started) / 1000;
}

/**
 * The LRU's content after a Zipf stream that has just seen `entries`
 * distinct links: those links, oldest last use first. Returns their ranks
 * and how long the stream was.
 */
function lruAfterZipf(
  links: number,
  exponent: number,
  entries: number,
  seed: number,
): { ranks: number[]; draws: number } {
  const target = Math.min(entries, links);
  const draw = zipfSampler(links, exponent, seededRandom(seed));
  const seen = new Uint8Array(links + 1);
  let stream = new Int32Array(1 << 20);
  let n = 0;
  for (let distinct = 0; distinct < target;) {
    const rank = draw();
    if (n === stream.length) {
      const longer = new Int32Array(stream.length * 2);
      longer.set(stream);
      stream = longer;
    }
    stream[n++] = rank;
    if (!seen[rank]) {
      seen[rank] = 1;
      distinct++;
    }
  }
  const newestFirst: number[] = [];
  seen.fill(0);
  for (let i = n - 1; i >= 0; i--) {
    const rank = stream[i] as number;
    if (!seen[rank]) {
      seen[rank] = 1;
      newestFirst.push(rank);
    }
  }
  return { ranks: newestFirst.reverse(), draws: n };
}

interface Histogram {
  /** Cumulative counts by upper bound, ascending, +Inf last. */
  buckets: [number, number][];
  count: number;
  sum: number;
}

const emptyHistogram = (): Histogram => ({ buckets: [], count: 0, sum: 0 });

function addHistogram(into: Histogram, after: Histogram, before: Histogram): void {
  into.count += after.count - before.count;
  into.sum += after.sum - before.sum;
  after.buckets.forEach(([le, n], i) => {
    const was = before.buckets[i]?.[1] ?? 0;
    const slot = into.buckets[i];
    if (slot) slot[1] += n - was;
    else into.buckets.push([le, n - was]);
  });
}

/** As Prometheus's histogram_quantile: linear within the bucket the quantile falls in. */
function quantile(h: Histogram, q: number): number {
  const rank = q * h.count;
  let lower = 0;
  let below = 0;
  for (const [le, n] of h.buckets) {
    if (n >= rank) {
      if (!Number.isFinite(le)) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, n - below);
    }
    lower = le;
    below = n;
  }
  return NaN;
}

interface Scrape {
  hits: number;
  misses: number;
  entries: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** Lookups that found their link. */
  lookups: Histogram;
}

async function scrape(url: string): Promise<Scrape> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? NaN : Number(line.slice(series.length + 1));
  };
  const name = 'shortlink_link_lookup_duration_seconds';
  const buckets: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)",outcome="found"\\} (\\d+)$`, 'gm'))) {
    buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  return {
    hits: value('shortlink_link_cache_hits_total'),
    misses: value('shortlink_link_cache_misses_total'),
    entries: value('shortlink_link_cache_entries'),
    rssBytes: value('shortlink_process_resident_memory_bytes'),
    heapUsedBytes: value('shortlink_nodejs_heap_size_used_bytes'),
    lookups: {
      buckets,
      count: value(`${name}_count{outcome="found"}`) || 0,
      sum: value(`${name}_sum{outcome="found"}`) || 0,
    },
  };
}

function measureCacheMemory(root: string, entries: number): Promise<CacheMemory> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', join(root, 'bench/dist/cache-memory.js'), JSON.stringify({ entries })],
      { cwd: root },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`cache memory: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as CacheMemory);
      },
    );
  });
}

import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from './report';

/**
 * A smoke run of every benchmark (`--quick`: about a second each, small data),
 * so they cannot rot. No timing is asserted: on a shared CI machine it would
 * only measure the neighbours. What is asserted is that each part ran through
 * the real stack and its correctness checks held.
 */
const ROOT = join(__dirname, '..', '..');

beforeAll(() => {
  // The benchmarks run built code, as `npm run bench` does.
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-b'], { cwd: ROOT, stdio: 'inherit' });
});

it('runs every benchmark end to end (quick)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-'));
  const out = join(dir, 'quick.json');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(ROOT, 'bench/dist/main.js'), '--quick', '--out', out],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
            DATABASE_URL: process.env.DATABASE_URL ?? '',
            CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? '',
          },
          timeout: 240_000,
        },
        (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
      );
    });
    const report = JSON.parse(await readFile(out, 'utf8')) as Report;
    expect(report.quick).toBe(true);
    expect(report.machine.cores).toBeGreaterThan(0);
    const {
      redirect,
      clickCost,
      clickWorker,
      create,
      bulk,
      ingestion,
      analytics,
      accountAnalytics,
      dashboard,
      list,
      previews,
      previewShares,
      previewMemory,
      rebuild,
      embedded,
      coldCache,
      rules,
      redirectRoute,
    } = report.results;
    expect(redirect!.humanRequestsAnswered).toBeGreaterThan(0);
    expect(redirect!.clicksInClickHouse).toBe(redirect!.humanRequestsAnswered);
    expect(redirect!.runs.map((r) => r.server)).toEqual(['redirector', 'baseline']);
    expect(clickCost!.runs.map((r) => r.traffic)).toEqual(['crawler', 'browser']);
    expect(clickCost!.runs[0]!.clicks).toBe(0);
    // Every 302 the client got was a click; a few more were answered as the run ended.
    expect(clickCost!.runs[1]!.clicks).toBeGreaterThanOrEqual(clickCost!.runs[1]!.requests);
    expect(clickCost!.clicksDropped).toBe(0);
    expect(clickWorker!.runs.map((r) => [r.idle.clicks, r.clicking.clicks])).toEqual([[0, 1000]]);
    // The warm-up's clicks and the window's, every one acknowledged by Kafka.
    expect(clickWorker!.clicksSent).toBe(2000);
    expect(clickWorker!.clicksDropped).toBe(0);
    expect(create!.created).toBeGreaterThan(0);
    expect(create!.atRate!.created).toBeGreaterThan(0);
    expect(bulk!.created).toBeGreaterThan(0);
    expect(ingestion!.clicks).toBe(2000);
    expect(ingestion!.freshness.samples).toBe(2);
    expect(Object.keys(analytics!.ranges)).toEqual(['7d', '30d', '90d', 'all']);
    // Every grouping over every range; the tag grouping names each of the bench's tags.
    expect(Object.keys(accountAnalytics!.reads)).toHaveLength(28);
    expect(accountAnalytics!.reads['tag all']!.rows).toBe(accountAnalytics!.tags);
    expect(dashboard!.ready.runs).toBe(2);
    expect(Object.keys(dashboard!.requests).length).toBeGreaterThan(0);
    expect(list!.queries['first page (20)']!.listed).toBe(20);
    expect(list!.queries['tag, rare (1 in 1,000)']!.listed).toBe(2);
    expect(list!.queries['search, rare (1 link)']!.listed).toBeGreaterThan(0);
    expect(list!.queries['search, no match']!.listed).toBe(0);
    expect(previews!.backlog).toBe(2000);
    expect(previews!.sources.fetch).toBeGreaterThan(0);
    expect(previews!.fresh.created).toBeGreaterThan(0);
    expect(previews!.fresh.previewed).toBe(previews!.fresh.created);
    expect(previewShares!.hangingLinks).toBe(60);
    expect(previewShares!.other.previewed).toBe(previewShares!.otherLinks);
    expect(previewMemory!.cases.map((c) => [c.log, c.destinations, c.links])).toEqual([
      ['kafka', 'distinct', 2000],
      ['kafka', 'shared', 2000],
      ['embedded', 'distinct', 2000],
      ['embedded', 'shared', 2000],
    ]);
    expect(rebuild!.rows).toEqual(rebuild!.expected);
    expect(embedded!.create.created).toBeGreaterThan(0);
    expect(embedded!.create.failed).toBe(0);
    expect(embedded!.createAtRate!.created).toBeGreaterThan(0);
    expect(embedded!.createAtRate!.failed).toBe(0);
    expect(embedded!.redirect.redirects).toBeGreaterThan(0);
    expect(embedded!.redirect.failed).toBe(0);
    expect(coldCache!.fill.requests).toBe(2000);
    expect(coldCache!.memory.cachedEntries).toBe(2000);
    expect(coldCache!.runs.map((r) => r.kind)).toEqual(['warm', 'zipf']);
    expect(coldCache!.hitRatio).toBeGreaterThan(0);
    expect(coldCache!.hitRatio).toBeLessThan(1);
    expect(coldCache!.miss.lookups).toBeGreaterThan(0);
    expect(coldCache!.errors).toBe(0);
    expect(rules!.ns.noRules).toBeGreaterThan(0);
    // No comparison of the cases' times: in a quick run of 20,000 calls they are within the machine's noise
    // (five rules none holding once timed 505.6 ns against 511.7 ns for the first holding, in a clean-clone CI).
    expect(rules!.ns.fiveRulesNoneHolds).toBeGreaterThan(0);
    expect(rules!.compiledFiveRulesBytes).toBeGreaterThan(0);
    // An A/A run (no --against): both sides answered every redirect.
    expect(redirectRoute!.pairs).toBe(1);
    expect(redirectRoute!.nsPerRedirect.here).toBeGreaterThan(0);
    expect(redirectRoute!.nsPerRedirect.against).toBeGreaterThan(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 300_000);

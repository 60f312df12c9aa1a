import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { loadBigLink, readRanges, type AnalyticsResult } from './analytics';
import { childPids, localStorePids, splitCpus } from './cpu-split';
import { LINK_PAGE_READY, LINKS_PAGE_READY } from './dashboard-ready';
import { percentiles, round } from './measure';
import type { BenchStack } from './stack';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

export interface DashboardResult {
  clicks: number;
  /** `link`: the link's own page; `links`: the links list, when the link page's ready marker never appeared. */
  page: 'link' | 'links';
  hash: string;
  readySelector: string;
  ready: { p50Ms: number; p95Ms: number; maxMs: number; runs: number };
  /** Each API request the page made, by path (the slug as `<slug>`), with the analytics p99 it is held to. */
  requests: Record<
    string,
    {
      p50Ms: number;
      maxMs: number;
      count: number;
      barMs: number;
      barRange: string;
      /** The mean as the browser saw it, beside the service's own mean for its route over the same tabs. */
      meanMs: number;
      serviceMeanMs: number;
    }
  >;
  /** The analytics endpoint read as the analytics part reads it, on the same link: the requests' bar. */
  analytics: AnalyticsResult['ranges'];
  /** The cores the service (analytics process and local ClickHouse) and Chromium each ran on; null: not split. */
  cores: { service: string; browser: string } | null;
}

/**
 * A link's dashboard page at `clicks` clicks: the link loaded as the analytics part loads it, its ranges read as
 * that part reads them (the bar each request of the page is held to), then the page opened in Debian's Chromium,
 * signed in, `runs` times in fresh tabs, timed from navigation to its ready marker, with each API request's timing
 * as the browser saw it. The link page is `#/links/<slug>`; while it does not show LINK_PAGE_READY within
 * `linkPageWaitMs` the links list (`#/links`, which shows the link's clicks too) is timed instead, and said so.
 */
export async function benchDashboard(
  root: string,
  stack: BenchStack,
  options: {
    clicks: number;
    days: number;
    visitors: number;
    analyticsRequests: number;
    runs: number;
    warmUpRuns: number;
    linkPageWaitMs: number;
  },
): Promise<DashboardResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const { slug } = await loadBigLink(stack, options);
  const analytics = await stack.start('analytics');
  const before = new Set(childPids(process.pid));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  // The service on some cores, Chromium on the others, before the bar is read: both measured as they would be on
  // a server and a person's computer.
  const split = splitCpus();
  const stores = localStorePids(root);
  if (split) {
    // This process drives Chromium and reads the bar: a client, so on the client's side. First, as pinning takes
    // every process started since (the service included), which the next lines move to the service's side.
    split.pinBrowser(process.pid);
    split.pinService(analytics.pid);
    for (const pid of stores) split.pinService(pid);
    for (const pid of childPids(process.pid)) if (!before.has(pid)) split.pinBrowser(pid);
  }
  try {
    const ranges = await readRanges(analytics.url, stack.key, slug, {
      ...options,
      requests: options.analyticsRequests,
    });

    let page: DashboardResult['page'] = 'link';
    let hash = `#/links/${encodeURIComponent(slug)}`;
    let readySelector = LINK_PAGE_READY;
    if (
      !(await openOnce(browser, analytics.url, stack.key, hash, readySelector, options.linkPageWaitMs, async () => {}))
    ) {
      process.stderr.write(
        `[bench] dashboard: the link page (${hash}) showed no ${LINK_PAGE_READY} within ${options.linkPageWaitMs} ms: ` +
          'timing the links list (#/links) instead\n',
      );
      page = 'links';
      hash = '#/links';
      readySelector = LINKS_PAGE_READY;
    }

    const readyMs: number[] = [];
    const requestMs = new Map<string, number[]>();
    // The service's own time per route, apart for the page's requests and for the figures asked again once idle.
    const servedLoading: ServiceTimes = new Map();
    const servedIdle: ServiceTimes = new Map();
    for (let run = 0; run < options.warmUpRuns + options.runs; run++) {
      const measured = run >= options.warmUpRuns;
      const start = measured ? await serviceTimes(analytics.url) : undefined;
      let loaded: ServiceTimes | undefined;
      const timed = await openOnce(browser, analytics.url, stack.key, hash, readySelector, 30_000, async () => {
        if (measured) loaded = await serviceTimes(analytics.url);
      });
      if (!timed) throw new Error(`the dashboard's ${page} page showed no ${readySelector} within 30 s`);
      if (!measured || !start || !loaded) continue;
      addTimes(servedLoading, start, loaded);
      addTimes(servedIdle, loaded, await serviceTimes(analytics.url));
      readyMs.push(timed.readyMs);
      for (const [path, ms] of timed.requests) {
        const key = path.replace(encodeURIComponent(slug), '<slug>');
        requestMs.set(key, [...(requestMs.get(key) ?? []), ms]);
      }
    }

    const ready = percentiles(readyMs);
    const requests: DashboardResult['requests'] = {};
    for (const [path, samples] of requestMs) {
      const p = percentiles(samples);
      // An analytics request is held to the p99 of its own range; any other to the slowest range's.
      const range = /\/analytics(\?|$)/.test(path) ? (/[?&]range=([^&\s]+)/.exec(path)?.[1] ?? '7d') : undefined;
      const worst = Object.entries(ranges).sort(([, a], [, b]) => b.p99Ms - a.p99Ms)[0];
      const [barRange, bar] = range && ranges[range] ? [range, ranges[range]] : (worst ?? ['none', undefined]);
      const route = path.replace('<slug>', ':slug').replace(/\?.*$/, '');
      const own = (path.endsWith(AGAIN) ? servedIdle : servedLoading).get(route);
      const serviceMeanMs = own && own.count > 0 ? round((own.sum / own.count) * 1000) : NaN;
      const meanMs = round(samples.reduce((sum, ms) => sum + ms, 0) / samples.length);
      requests[path] = {
        p50Ms: p.p50,
        maxMs: p.max,
        count: p.n,
        barMs: bar?.p99Ms ?? NaN,
        barRange,
        meanMs,
        serviceMeanMs,
      };
    }
    return {
      clicks: options.clicks,
      page,
      hash,
      readySelector,
      ready: { p50Ms: ready.p50, p95Ms: ready.p95, maxMs: ready.max, runs: ready.n },
      requests,
      analytics: ranges,
      cores: split && { service: split.service, browser: split.browser },
    };
  } finally {
    if (split) for (const pid of stores) split.release(pid);
    await browser.close();
    await analytics.stop();
  }
}

type ServiceTimes = Map<string, { sum: number; count: number }>;

/** Adds to `into` each route's time between two readings of the service's histogram. */
function addTimes(into: ServiceTimes, before: ServiceTimes, after: ServiceTimes): void {
  for (const [route, now] of after) {
    const then = before.get(route) ?? { sum: 0, count: 0 };
    const entry = into.get(route) ?? { sum: 0, count: 0 };
    entry.sum += now.sum - then.sum;
    entry.count += now.count - then.count;
    into.set(route, entry);
  }
}

/** The key of the page's figures asked again once the page is idle: the browser's own cost with nothing to draw. */
export const AGAIN = ' (again, page idle)';

/**
 * The service's own time per route so far, from its request histogram (`shortlink_http_request_duration_seconds`,
 * GET answered 200): its sum and count, so the difference of two readings is the mean of the requests between them.
 */
async function serviceTimes(base: string): Promise<ServiceTimes> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const times: ServiceTimes = new Map();
  for (const line of text.split('\n')) {
    const m = /^shortlink_http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !/method="GET"/.test(m[2]!) || !/status="200"/.test(m[2]!)) continue;
    const route = /route="([^"]*)"/.exec(m[2]!)?.[1];
    if (!route) continue;
    const entry = times.get(route) ?? { sum: 0, count: 0 };
    entry[m[1] as 'sum' | 'count'] = Number(m[3]);
    times.set(route, entry);
  }
  return times;
}

/**
 * The page opened once in a fresh signed-in tab: the time from navigation to `ready`, and each API request's time
 * from its start to its answer's last byte (playwright's request timing); null when `ready` did not appear. Once the
 * page is ready and its network idle, `loaded` is called, and the page's first analytics request is made again from
 * the idle page (its key ends in AGAIN): the same request with nothing else for the browser to do.
 */
async function openOnce(
  browser: Browser,
  base: string,
  key: string,
  hash: string,
  ready: string,
  timeoutMs: number,
  loaded: () => Promise<void>,
): Promise<{ readyMs: number; requests: [string, number][] } | null> {
  const context: BrowserContext = await browser.newContext();
  try {
    // The key as "Sign in" leaves it: in the tab's sessionStorage, before the page's scripts run.
    await context.addInitScript(`sessionStorage.setItem('shortlink.apiKey', ${JSON.stringify(key)})`);
    const tab = await context.newPage();
    const requests: [string, number][] = [];
    let idle = false; // the figures asked again are timed apart
    tab.on('requestfinished', (request) => {
      const url = new URL(request.url());
      if (idle) return;
      if (url.pathname.startsWith('/api/'))
        requests.push([`${url.pathname}${url.search}`, request.timing().responseEnd]);
    });
    const started = performance.now();
    await tab.goto(`${base}/dashboard${hash}`);
    try {
      await tab.locator(ready).first().waitFor({ timeout: timeoutMs });
    } catch {
      return null;
    }
    const readyMs = performance.now() - started;
    await tab.waitForLoadState('networkidle');
    await loaded();
    const figures = requests.find(([path]) => /\/analytics(\?|$)/.test(path))?.[0];
    if (figures) {
      idle = true;
      const finished = tab.waitForEvent('requestfinished');
      const [timing] = await Promise.all([
        finished.then((request) => request.timing().responseEnd),
        tab.evaluate(
          async ({ path, key }) => {
            await (await fetch(path, { headers: { authorization: `Bearer ${key}` } })).text();
          },
          { path: figures, key },
        ),
      ]);
      return { readyMs, requests: [...requests, [`${figures}${AGAIN}`, timing]] };
    }
    return { readyMs, requests };
  } finally {
    await context.close();
  }
}

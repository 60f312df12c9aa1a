import type { AccountAnalyticsResult } from './account-analytics';
import type { AnalyticsResult } from './analytics';
import type { BulkResult } from './bulk';
import type { ClickCostResult } from './click-cost';
import type { ClickWorkerResult } from './click-worker';
import type { ColdCacheResult } from './cold-cache';
import type { CreateResult } from './create';
import { AGAIN, type DashboardResult } from './dashboard';
import type { EmbeddedResult } from './embedded';
import type { ExportResult } from './export';
import type { IngestionResult } from './ingestion';
import type { ListResult } from './list';
import type { PreviewMemoryResult } from './preview-memory';
import type { PreviewsResult } from './previews';
import type { PreviewSharesResult } from './preview-shares';
import type { RebuildResult } from './rebuild';
import type { RedirectResult } from './redirect';
import type { RulesResult } from './rules';
import type { RedirectRouteResult } from './redirect-route';
import type { WebhooksResult } from './webhooks';

export interface Report {
  date: string;
  quick: boolean;
  machine: { cores: number; cpu: string; memoryGiB: number; node: string };
  /** Node or V8 flags every process under test was started with (`--node-arg`); none when absent. */
  nodeArgs?: string[];
  results: {
    redirect?: RedirectResult;
    clickCost?: ClickCostResult;
    clickWorker?: ClickWorkerResult;
    create?: CreateResult;
    bulk?: BulkResult;
    ingestion?: IngestionResult;
    analytics?: AnalyticsResult;
    accountAnalytics?: AccountAnalyticsResult;
    dashboard?: DashboardResult;
    export?: ExportResult;
    list?: ListResult;
    previews?: PreviewsResult;
    previewShares?: PreviewSharesResult;
    previewMemory?: PreviewMemoryResult;
    rebuild?: RebuildResult;
    embedded?: EmbeddedResult;
    coldCache?: ColdCacheResult;
    webhooks?: WebhooksResult;
    rules?: RulesResult;
    redirectRoute?: RedirectRouteResult;
  };
}

const GOALS = {
  /** About the ceiling on two cores with a Kafka record per click. */
  redirectRatio: 0.8,
  redirectP99Ratio: 1.5,
  /** CPU a recorded click adds, every redirector thread and the broker included, in µs. */
  clickPipelineUs: 6,
  createPerSecond: 2000,
  createP99Ms: 25,
  bulkPerSecond: 20_000,
  ingestPerSecond: 20_000,
  freshnessP99Ms: 2000,
  analyticsP99Ms: 50,
  /** A link's dashboard page, from navigation to everything it loads shown. */
  dashboardReadyMs: 1000,
  /** The analytics process's memory over a whole export: flat, whatever the export's size. */
  exportRssGrowthMiB: 64,
  listP99Ms: 20,
  previewDrainPerSecond: 1000,
  previewFreshP95Ms: 5000,
  /** Heap and buffers a link waiting for its preview costs the worker, in bytes. */
  previewBytesPerPendingLink: 1024,
  rebuildPerSecond: 50_000,
  embeddedCreatePerSecond: 1000,
  embeddedCreateP99Ms: 50,
  /** Embedded redirects against the servers mode's, in the same run. */
  embeddedRedirectRatio: 0.5,
  /** Zipf-distributed redirects over far more links than are cached, against all-cached ones in the same run. */
  coldRedirectRatio: 0.5,
  coldRedirectP99Ms: 10,
  cachedLinkBytes: 200,
  webhookP99Ms: 1000,
  /** The healthy endpoints' p99 with 100 dead endpoints about, against the all-healthy run's. */
  webhookDeadP99Ratio: 1.2,
  webhookDeliveriesPerSecond: 5000,
  /** What five rules may add to a redirect, against a link without rules, in ns. */
  rulesAddedNs: 1000,
  /** The redirect route against another checkout's (`redirect-route --against`): at most 3 % slower, time and p99. */
  redirectRouteRatio: 1.03,
};

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** The report as a Markdown table. */
export function formatReport(report: Report): string {
  const rows: string[][] = [];
  const { clickCost, clickWorker } = report.results;
  const {
    redirect,
    create,
    bulk,
    ingestion,
    analytics,
    dashboard,
    list,
    previews,
    previewShares,
    previewMemory,
    rebuild,
    embedded,
    coldCache,
    webhooks,
    rules,
    redirectRoute,
  } = report.results;
  if (redirect) {
    rows.push([
      `Redirect: ours (clients: ${redirect.addresses})`,
      `${n(redirect.redirector.requestsPerSecond)} req/s`,
      `p50 ${n(redirect.redirector.p50Ms)} ms, p99 ${n(redirect.redirector.p99Ms)} ms`,
      '',
    ]);
    rows.push([
      'Redirect: bare fastify + Map',
      `${n(redirect.baseline.requestsPerSecond)} req/s`,
      `p50 ${n(redirect.baseline.p50Ms)} ms, p99 ${n(redirect.baseline.p99Ms)} ms`,
      '',
    ]);
    rows.push([
      'Redirect: ratio',
      `${n(redirect.throughputRatio)} (goal ≥ ${GOALS.redirectRatio})`,
      `p99 ${n(redirect.p99Ratio)}× (goal ≤ ${GOALS.redirectP99Ratio}×)`,
      verdict(redirect.throughputRatio >= GOALS.redirectRatio && redirect.p99Ratio <= GOALS.redirectP99Ratio),
    ]);
    rows.push([
      'Redirect: clicks counted',
      `${n(redirect.clicksInClickHouse)} in ClickHouse`,
      `${n(redirect.humanRequestsAnswered)} human redirects answered (${n(redirect.clicksDropped)} dropped; client saw ${n(redirect.redirectsReceivedByClient)})`,
      verdict(redirect.clicksInClickHouse === redirect.humanRequestsAnswered),
    ]);
  }
  if (clickCost) {
    rows.push([
      `Click pipeline CPU (clients: ${clickCost.addresses})`,
      `${clickCost.pipelineUsPerClick === null ? 'n/a (remote broker)' : `${n(clickCost.pipelineUsPerClick)} µs/click`} (goal ≤ ${GOALS.clickPipelineUs})`,
      `redirector ${n(clickCost.redirectorUsPerClick)} µs (redirect thread ${n(clickCost.byThreadUsPerClick.redirectThread)}, click worker ${n(clickCost.byThreadUsPerClick.clickWorker)}, other threads ${n(clickCost.byThreadUsPerClick.otherThreads)}) + broker ${clickCost.brokerUsPerClick === null ? 'n/a' : n(clickCost.brokerUsPerClick)} µs; a redirect alone ${n(clickCost.redirectUs)} µs`,
      verdict(clickCost.pipelineUsPerClick !== null && clickCost.pipelineUsPerClick <= GOALS.clickPipelineUs),
    ]);
  }
  if (clickWorker) {
    const us = clickWorker.usPerClick;
    rows.push([
      `Click sink alone, ${n(clickWorker.ratePerSecond)} clicks/s (clients: ${clickWorker.addresses})`,
      `${us.pipeline === null ? 'n/a (remote broker)' : `${n(us.pipeline)} µs/click`} (goal ≤ ${GOALS.clickPipelineUs})`,
      `hand-off ${n(us.handOff)}, click worker ${n(us.clickWorker)}, other threads ${n(us.otherThreads)}, broker ${us.broker === null ? 'n/a' : n(us.broker)} µs; ${n(clickWorker.clicksSent)} sent, ${n(clickWorker.clicksDropped)} dropped`,
      verdict(us.pipeline !== null && us.pipeline <= GOALS.clickPipelineUs && clickWorker.clicksDropped === 0),
    ]);
  }
  if (create) {
    rows.push([
      'Create link (50 conn.)',
      `${n(create.linksPerSecond)} links/s (goal ≥ ${n(GOALS.createPerSecond)})`,
      `p50 ${n(create.p50Ms)} ms, p99 ${n(create.p99Ms)} ms (goal ≤ ${GOALS.createP99Ms})`,
      verdict(create.linksPerSecond >= GOALS.createPerSecond && create.p99Ms <= GOALS.createP99Ms),
    ]);
    if (create.atRate) {
      const at = create.atRate;
      rows.push([
        `Create link at ${n(at.offeredPerSecond)} links/s offered`,
        `${n(at.linksPerSecond)} links/s`,
        `p50 ${n(at.p50Ms)} ms, p99 ${n(at.p99Ms)} ms (goal ≤ ${GOALS.createP99Ms}); ${n(at.failed)} failed`,
        verdict(at.linksPerSecond >= at.offeredPerSecond * 0.98 && at.p99Ms <= GOALS.createP99Ms && at.failed === 0),
      ]);
    }
  }
  if (bulk) {
    rows.push([
      'Bulk create (100 links a request)',
      `${n(bulk.linksPerSecond)} links/s (goal ≥ ${n(GOALS.bulkPerSecond)})`,
      `p50 ${n(bulk.p50Ms)} ms, p99 ${n(bulk.p99Ms)} ms a request; ${n(bulk.failedRequests)} failed requests`,
      verdict(bulk.linksPerSecond >= GOALS.bulkPerSecond && bulk.failedRequests === 0),
    ]);
  }
  if (ingestion) {
    rows.push([
      'Ingestion, end to end',
      `${n(ingestion.clicksPerSecond)} clicks/s (goal ≥ ${n(GOALS.ingestPerSecond)})`,
      `${n(ingestion.clicks)} clicks in ${n(ingestion.seconds)} s; produced at ${n(ingestion.producedPerSecond)}/s`,
      verdict(ingestion.clicksPerSecond >= GOALS.ingestPerSecond),
    ]);
    rows.push([
      'Freshness (click → analytics)',
      `p50 ${n(ingestion.freshness.p50Ms)} ms, p99 ${n(ingestion.freshness.p99Ms)} ms (goal ≤ ${n(GOALS.freshnessP99Ms)})`,
      `${ingestion.freshness.samples} samples, ${n(ingestion.freshness.backgroundClicksPerSecond)} clicks/s alongside`,
      verdict(ingestion.freshness.p99Ms <= GOALS.freshnessP99Ms),
    ]);
  }
  if (analytics) {
    for (const [range, r] of Object.entries(analytics.ranges)) {
      rows.push([
        `Analytics ${range} (${n(analytics.clicks)} clicks)`,
        `p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms`,
        `max ${n(r.maxMs)} ms over ${r.requests} requests; visitors from ${
          r.wholeLife
            ? `link_uniques (${analytics.parts.linkUniques} parts)`
            : `link_visitors (${analytics.parts.linkVisitors} parts)`
        }`,
        `${verdict(r.p99Ms <= GOALS.analyticsP99Ms)} (goal p99 ≤ ${GOALS.analyticsP99Ms} ms)`,
      ]);
    }
  }
  if (report.results.accountAnalytics) {
    const { clicks, links, reads, failures } = report.results.accountAnalytics;
    for (const [read, r] of Object.entries(reads)) {
      rows.push([
        `Account analytics ${read} (${n(clicks)} clicks, ${n(links)} links)`,
        `p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms`,
        `max ${n(r.maxMs)} ms over ${r.requests} requests; ${r.rows} rows`,
        `${verdict(r.p99Ms <= GOALS.analyticsP99Ms)} (goal p99 ≤ ${GOALS.analyticsP99Ms} ms)`,
      ]);
    }
    for (const [read, failure] of Object.entries(failures)) {
      rows.push([`Account analytics ${read} (${n(clicks)} clicks, ${n(links)} links)`, 'failed', failure, 'MISSED']);
    }
  }
  if (dashboard) {
    const what = dashboard.page === 'link' ? 'link page' : 'links list (no link page yet)';
    rows.push([
      `Dashboard ${what} ready (${n(dashboard.clicks)} clicks)`,
      `p50 ${n(dashboard.ready.p50Ms)} ms, p95 ${n(dashboard.ready.p95Ms)} ms`,
      `max ${n(dashboard.ready.maxMs)} ms over ${dashboard.ready.runs} fresh tabs, to ${dashboard.readySelector}`,
      `${verdict(dashboard.ready.p95Ms <= GOALS.dashboardReadyMs)} (goal p95 ≤ ${n(GOALS.dashboardReadyMs)} ms)`,
    ]);
    const cores = dashboard.cores
      ? ` (service on cores ${dashboard.cores.service}, Chromium on ${dashboard.cores.browser})`
      : '';
    for (const [path, r] of Object.entries(dashboard.requests)) {
      rows.push([
        `Dashboard request ${path}`,
        `p50 ${n(r.p50Ms)} ms, max ${n(r.maxMs)} ms`,
        `${r.count} requests, in the browser${cores} (mean ${n(r.meanMs)} ms; the service's own ${n(r.serviceMeanMs)} ms); analytics ${r.barRange} p99 ${n(r.barMs)} ms on the same link`,
        path.endsWith(AGAIN)
          ? 'not a request of the page: the browser with nothing else to do'
          : `${verdict(r.maxMs <= r.barMs)} (goal: none slower than the analytics p99)`,
      ]);
    }
  }
  if (report.results.export) {
    const { clicks, formats } = report.results.export;
    for (const [format, r] of Object.entries(formats)) {
      rows.push([
        `Click export, ${format} (${n(clicks)} clicks)`,
        `${n(r.rowsPerSecond)} rows/s`,
        `${n(r.bytes / 2 ** 20)} MiB in ${n(r.seconds)} s; analytics RSS ${n(r.rssBeforeMiB)} → at most ${n(r.rssMaxMiB)} MiB`,
        `${verdict(r.rssGrowthMiB <= GOALS.exportRssGrowthMiB)} (goal: RSS grows ≤ ${GOALS.exportRssGrowthMiB} MiB)`,
      ]);
    }
  }
  if (list) {
    for (const [name, r] of Object.entries(list.queries)) {
      rows.push([
        `List ${name} (${n(list.links)} links)`,
        `p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms`,
        `max ${n(r.maxMs)} ms over ${r.requests} requests; ${r.listed} links a page`,
        `${verdict(r.p99Ms <= GOALS.listP99Ms)} (goal p99 ≤ ${GOALS.listP99Ms} ms)`,
      ]);
    }
  }
  if (previews) {
    const { fresh, sources } = previews;
    rows.push([
      `Previews: backlog of ${n(previews.backlog)} links drained`,
      `${n(previews.linksPerSecond)} links/s (goal ≥ ${n(GOALS.previewDrainPerSecond)})`,
      `${n(previews.drainSeconds)} s; ${n(sources.fetch)} fetches, ${n(sources.shared + sources.cache)} links shared one; ${previews.hosts} hosts × ${previews.pagesPerHost} pages; worker peak RSS ${n(previews.peakRssMiB)} MiB`,
      verdict(previews.linksPerSecond >= GOALS.previewDrainPerSecond),
    ]);
    rows.push([
      'Previews: new link meanwhile (API → preview on the topic)',
      `p50 ${n(fresh.p50Ms)} ms, p95 ${n(fresh.p95Ms)} ms (goal ≤ ${n(GOALS.previewFreshP95Ms)})`,
      `p99 ${n(fresh.p99Ms)} ms, max ${n(fresh.maxMs)} ms; ${n(fresh.previewed)} of ${n(fresh.created)} previewed`,
      verdict(fresh.p95Ms <= GOALS.previewFreshP95Ms && fresh.created > 0),
    ]);
  }
  if (previewShares) {
    const { other } = previewShares;
    rows.push([
      `Previews: another account's new link while one account's ${n(previewShares.hangingLinks)} links hang`,
      `p50 ${n(other.p50Ms)} ms, p95 ${n(other.p95Ms)} ms (goal ≤ ${n(GOALS.previewFreshP95Ms)})`,
      `max ${n(other.maxMs)} ms; ${n(other.previewed)} of ${n(previewShares.otherLinks)} previewed; ${previewShares.bursts} bursts, one every ${n(previewShares.intervalMs)} ms, each link to a server of its own that never answers`,
      verdict(other.p95Ms <= GOALS.previewFreshP95Ms && other.previewed === previewShares.otherLinks),
    ]);
  }
  if (previewMemory) {
    for (const m of previewMemory.cases) {
      const destinations =
        m.destinations === 'distinct' ? 'each link to its own destination' : 'links sharing destinations';
      rows.push([
        `Previews: memory per pending link (${m.log === 'kafka' ? 'Kafka' : 'embedded log'}, ${destinations})`,
        `${n(m.bytesPerLink)} bytes (goal ≤ ${n(GOALS.previewBytesPerPendingLink)})`,
        `heap ${n(m.heapBytesPerLink)} + buffers ${n(m.externalBytesPerLink)} bytes, after GC; ${n(m.links)} links pending; RSS ${n(m.rssMiBBefore)} → ${n(m.rssMiBAfter)} MiB`,
        verdict(m.bytesPerLink <= GOALS.previewBytesPerPendingLink),
      ]);
    }
  }
  if (rebuild) {
    const { rows: got, expected } = rebuild;
    const exact =
      got.links === expected.links &&
      got.deleted === expected.deleted &&
      got.updated === expected.updated &&
      got.previews === expected.previews;
    rows.push([
      `Rebuild (${n(rebuild.links)} links, ${n(rebuild.events)} events)`,
      `${n(rebuild.eventsPerSecond)} events/s (goal ≥ ${n(GOALS.rebuildPerSecond)})`,
      `${n(rebuild.seconds)} s for \`npm run rebuild\` (loaded after ${n(rebuild.phases.loadedAfterSeconds)} s, indexed after ${n(rebuild.phases.indexedAfterSeconds)} s); ${n(got.links)} links (${n(got.deleted)} deleted, ${n(got.updated)} changed), ${n(got.previews)} previews${exact ? ', as expected' : `; expected ${JSON.stringify(expected)}`}`,
      verdict(rebuild.eventsPerSecond >= GOALS.rebuildPerSecond && exact),
    ]);
  }
  if (embedded) {
    const { create: c, createAtRate: at, redirect: r } = embedded;
    rows.push([
      'Embedded: create link (50 conn., as fast as they go)',
      `${n(c.linksPerSecond)} links/s (goal ≥ ${n(GOALS.embeddedCreatePerSecond)})`,
      `p50 ${n(c.p50Ms)} ms, p99 ${n(c.p99Ms)} ms; ${n(c.failed)} failed`,
      verdict(c.linksPerSecond >= GOALS.embeddedCreatePerSecond && c.failed === 0),
    ]);
    if (at) {
      rows.push([
        `Embedded: create link at ${n(at.offeredPerSecond)} links/s offered`,
        `${n(at.linksPerSecond)} links/s`,
        `p50 ${n(at.p50Ms)} ms, p99 ${n(at.p99Ms)} ms (goal ≤ ${GOALS.embeddedCreateP99Ms}); ${n(at.failed)} failed`,
        verdict(
          at.linksPerSecond >= GOALS.embeddedCreatePerSecond * 0.98 &&
            at.p99Ms <= GOALS.embeddedCreateP99Ms &&
            at.failed === 0,
        ),
      ]);
    }
    const ratio = redirect ? r.requestsPerSecond / redirect.redirector.requestsPerSecond : undefined;
    rows.push([
      'Embedded: redirect',
      `${n(r.requestsPerSecond)} req/s${ratio === undefined ? '' : ` (${n(ratio)}× the servers mode's; goal ≥ ${GOALS.embeddedRedirectRatio})`}`,
      `p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms; ${n(r.failed)} failed`,
      ratio === undefined ? '' : verdict(ratio >= GOALS.embeddedRedirectRatio && r.failed === 0),
    ]);
  }
  if (coldCache) {
    const c = coldCache;
    const links = `${n(c.links)} links, ${n(c.cacheSize)} cached`;
    rows.push([
      `Cold cache: loading ${n(c.links)} links`,
      `${n(c.loadSeconds)} s`,
      `claims and projection, ${n(c.tablesGiB)} GiB with their indexes`,
      '',
    ]);
    rows.push([
      `Cold cache: filling the cache (every request a miss)`,
      `${n(c.fill.requestsPerSecond)} req/s`,
      `p50 ${n(c.fill.p50Ms)} ms, p99 ${n(c.fill.p99Ms)} ms; ${n(c.fill.requests)} requests in ${n(c.fill.seconds)} s (the LRU after ${n(c.fill.zipfDraws)} Zipf draws)`,
      '',
    ]);
    rows.push([
      `Cold cache: warm (${links}; the most popular slugs)`,
      `${n(c.warm.requestsPerSecond)} req/s`,
      `p50 ${n(c.warm.p50Ms)} ms, p99 ${n(c.warm.p99Ms)} ms`,
      '',
    ]);
    rows.push([
      `Cold cache: Zipf s=${c.exponent} (${links})`,
      `${n(c.zipf.requestsPerSecond)} req/s, ${n(c.throughputRatio)}× warm (goal ≥ ${GOALS.coldRedirectRatio})`,
      `p50 ${n(c.zipf.p50Ms)} ms, p99 ${n(c.zipf.p99Ms)} ms (goal ≤ ${GOALS.coldRedirectP99Ms}); ${n(c.errors)} errors`,
      verdict(
        c.throughputRatio >= GOALS.coldRedirectRatio && c.zipf.p99Ms <= GOALS.coldRedirectP99Ms && c.errors === 0,
      ),
    ]);
    rows.push([
      `Cold cache: Zipf at ${n(c.zipfAtRate.offeredPerSecond)} req/s offered (half the warm throughput)`,
      `${n(c.zipfAtRate.requestsPerSecond)} req/s`,
      `p50 ${n(c.zipfAtRate.p50Ms)} ms, p99 ${n(c.zipfAtRate.p99Ms)} ms (goal ≤ ${GOALS.coldRedirectP99Ms})`,
      verdict(c.zipfAtRate.p99Ms <= GOALS.coldRedirectP99Ms),
    ]);
    rows.push([
      'Cold cache: hit ratio (Zipf runs)',
      `${n(c.hitRatio * 100)} %`,
      `${n(c.missesPerSecond)} misses/s; a miss's lookup: mean ${n(c.miss.meanMs)} ms, p50 ${n(c.miss.p50Ms)} ms, p99 ${n(c.miss.p99Ms)} ms (${n(c.miss.lookups)} lookups)`,
      '',
    ]);
    rows.push([
      'Cold cache: memory per cached link',
      `${n(c.memory.bytesPerLink)} bytes (goal ≤ ${GOALS.cachedLinkBytes})`,
      `${n(c.memory.entries)} links of ${n(c.memory.meanDestinationLength)}-character destinations, after as many evictions (${n(c.memory.bytesPerLinkFilled)} just filled); the redirector holding ${n(c.memory.cachedEntries)}: RSS ${n(c.memory.redirectorRssMiB)} MiB, heap used ${n(c.memory.redirectorHeapUsedMiB)} MiB`,
      verdict(c.memory.bytesPerLink <= GOALS.cachedLinkBytes),
    ]);
  }
  if (webhooks) {
    const w = webhooks;
    const load = `${n(w.endpoints)} endpoints, ${n(w.linkEventsPerSecond)} link events/s + ${n(w.clicksPerSecond)} clicks/s`;
    const detail = (r: typeof w.healthy) =>
      `produced ${n(r.producedLinkEventsPerSecond)} link events/s, ${n(r.producedClicksPerSecond)} clicks/s; max ${n(r.links.maxMs)} ms over ${n(r.links.deliveries)} link-event deliveries, ${n(r.missing)} missing; click batches (newest click → receipt) p50 ${n(r.clicks.p50Ms)} ms, p99 ${n(r.clicks.p99Ms)} ms over ${n(r.clicks.deliveries)}; ${r.backlog === 0 ? `queue empty ${n(r.drainSeconds)} s after the load` : `${n(r.backlog)} still queued ${n(r.drainSeconds)} s after the load`}; CPU while loaded (cores): dispatcher ${n(r.cpu.dispatcher)} (${n(r.cpu.dispatcherUsPerDelivery)} µs a delivery), receiver ${n(r.cpu.receiver)}, Postgres ${n(r.cpu.postgres)}, load generator ${n(r.cpu.bench)}, machine ${n(r.cpu.machine)}`;
    rows.push([
      `Webhooks: every endpoint healthy (${load})`,
      `link event → receipt p50 ${n(w.healthy.links.p50Ms)} ms, p99 ${n(w.healthy.links.p99Ms)} ms (goal ≤ ${n(GOALS.webhookP99Ms)})`,
      detail(w.healthy),
      verdict(w.healthy.links.p99Ms <= GOALS.webhookP99Ms && w.healthy.missing === 0 && w.healthy.backlog === 0),
    ]);
    rows.push([
      `Webhooks: ${n(w.deadEndpoints)} endpoints dead (never answer)`,
      `healthy endpoints' p99 ${n(w.dead.links.p99Ms)} ms, ${n(w.p99Ratio)}× the healthy run's (goal ≤ ${GOALS.webhookDeadP99Ratio}×)`,
      detail(w.dead),
      verdict(w.p99Ratio <= GOALS.webhookDeadP99Ratio && w.dead.missing === 0),
    ]);
    rows.push([
      'Webhooks: deliveries',
      `${n(w.healthy.deliveriesPerSecond)}/s (goal ≥ ${n(GOALS.webhookDeliveriesPerSecond)})`,
      `${n(w.healthy.offeredDeliveriesPerSecond)}/s asked for; ${n(w.healthy.drainDeliveriesPerSecond)}/s draining the backlog after the load; ${n(w.dead.deliveriesPerSecond)}/s with dead endpoints; dispatcher concurrency ${w.dispatcher.concurrency}, ${w.dispatcher.perEndpoint} an endpoint`,
      verdict(w.healthy.deliveriesPerSecond >= GOALS.webhookDeliveriesPerSecond),
    ]);
  }
  if (rules) {
    const r = rules;
    rows.push([
      'Rules: five rules, none holding, against a link without rules',
      `+${n(r.addedNs)} ns a redirect (goal ≤ ${n(GOALS.rulesAddedNs)})`,
      `no rules ${n(r.ns.noRules)} ns, five rules ${n(r.ns.fiveRulesNoneHolds)} ns (country remembered), ${n(r.ns.fiveRulesNoneHoldsGeoIp)} ns with a GeoIP lookup (+${n(r.addedNsGeoIp)}), the first holding ${n(r.ns.fiveRulesFirstHolds)} ns, then a variant ${n(r.ns.fiveRulesThenVariants)} ns; facts: agent ${n(r.facts.classifyAgent)} ns, language ${n(r.facts.preferredLanguage)} ns, query ${n(r.facts.queryParameter)} ns, bucket ${n(r.facts.variantBucket)} ns, GeoIP ${n(r.facts.geoIp)} ns; a compiled five-rule link ${n(r.compiledFiveRulesBytes)} bytes more (none without rules); median of ${r.rounds} rounds of ${n(r.calls)}`,
      verdict(r.addedNs <= GOALS.rulesAddedNs),
    ]);
  }
  if (redirectRoute) {
    const r = redirectRoute;
    rows.push([
      'Redirect route: this checkout against another, in process',
      `×${r.pairedRatio} time, ×${r.p99PairedRatio} p99 (goal ≤ ×${GOALS.redirectRouteRatio})`,
      `${n(r.nsPerRedirect.here)} ns against ${n(r.nsPerRedirect.against)} ns a redirect, p99 ${n(r.p99Ns.here)} ns against ${n(r.p99Ns.against)} ns; medians of ${r.pairs} alternating pairs of ${n(r.redirects)} redirects; against ${r.against}`,
      verdict(r.pairedRatio <= GOALS.redirectRouteRatio && r.p99PairedRatio <= GOALS.redirectRouteRatio),
    ]);
  }
  const header = ['Benchmark', 'Result', 'Detail', 'Goal'];
  const lines = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  const m = report.machine;
  return `${report.quick ? '(quick smoke run: figures mean nothing)\n' : ''}${m.cores} cores, ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}${report.nodeArgs?.length ? ` ${report.nodeArgs.join(' ')}` : ''}, ${report.date}\n\n${lines.join('\n')}`;
}

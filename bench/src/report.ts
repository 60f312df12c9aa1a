import type { AnalyticsResult } from './analytics';
import type { BulkResult } from './bulk';
import type { CreateResult } from './create';
import type { EmbeddedResult } from './embedded';
import type { IngestionResult } from './ingestion';
import type { ListResult } from './list';
import type { RedirectResult } from './redirect';

export interface Report {
  date: string;
  quick: boolean;
  machine: { cores: number; cpu: string; memoryGiB: number; node: string };
  results: {
    redirect?: RedirectResult;
    create?: CreateResult;
    bulk?: BulkResult;
    ingestion?: IngestionResult;
    analytics?: AnalyticsResult;
    list?: ListResult;
    embedded?: EmbeddedResult;
  };
}

const GOALS = {
  redirectRatio: 0.9,
  redirectP99Ratio: 1.2,
  createPerSecond: 2000,
  createP99Ms: 25,
  bulkPerSecond: 20_000,
  ingestPerSecond: 20_000,
  freshnessP99Ms: 2000,
  analyticsAllP99Ms: 50,
  listP99Ms: 20,
  embeddedCreatePerSecond: 1000,
  embeddedCreateP99Ms: 50,
  /** Embedded redirects against the servers mode's, in the same run. */
  embeddedRedirectRatio: 0.5,
};

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** A Markdown table (what the README's Performance section shows). */
export function formatReport(report: Report): string {
  const rows: string[][] = [];
  const { redirect, create, bulk, ingestion, analytics, list, embedded } = report.results;
  if (redirect) {
    rows.push([
      'Redirect: ours',
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
          range === 'all'
            ? `link_uniques (${analytics.parts.linkUniques} parts)`
            : `link_visitors (${analytics.parts.linkVisitors} parts)`
        }`,
        range === 'all'
          ? `${verdict(r.p99Ms <= GOALS.analyticsAllP99Ms)} (goal p99 ≤ ${GOALS.analyticsAllP99Ms} ms)`
          : '',
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
  const header = ['Benchmark', 'Result', 'Detail', 'Goal'];
  const lines = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  const m = report.machine;
  return `${report.quick ? '(quick smoke run: figures mean nothing)\n' : ''}${m.cores} cores, ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, ${report.date}\n\n${lines.join('\n')}`;
}

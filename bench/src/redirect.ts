import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientAddresses } from './client-addresses';
import { runLoad, round } from './measure';
import { createLinks, scalar, settle, type BenchStack } from './stack';

export const CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export interface RedirectOptions {
  slugs: number;
  durationSeconds: number;
  connections: number;
  /** A B A B: how many runs of each. */
  rounds: number;
  /** Where the clicks come from (client-addresses.ts); the baseline is sent the same. */
  addresses: ClientAddresses;
}

export interface RedirectResult {
  /** Where the clicks came from (client-addresses.ts); absent means loopback. */
  addresses: ClientAddresses;
  runs: { server: 'redirector' | 'baseline'; requestsPerSecond: number; p50Ms: number; p99Ms: number }[];
  redirector: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
  baseline: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
  throughputRatio: number;
  p99Ratio: number;
  /** Human (countable) redirects the redirector answered, by its own counters: queued + dropped. */
  humanRequestsAnswered: number;
  /** 302s the load generator received (it stops waiting for the ones in flight when a run ends). */
  redirectsReceivedByClient: number;
  clicksDropped: number;
  clicksInClickHouse: number;
  errors: number;
}

/**
 * The project's redirector (click recording on, warm cache, desktop Chrome)
 * against a bare fastify server answering from a Map of the same slugs,
 * alternated A B A B so drift on a shared machine hits both alike.
 */
export async function benchRedirect(
  root: string,
  stack: BenchStack,
  options: RedirectOptions,
): Promise<RedirectResult> {
  const writeApi = await stack.start('write-api');
  const links = await createLinks(writeApi.url, stack.key, options.slugs, 'r');
  await writeApi.stop();
  const mapFile = join(tmpdir(), `bench-links-${process.pid}.json`);
  await writeFile(mapFile, JSON.stringify(Object.fromEntries([...links].map(([slug, l]) => [slug, l.destination]))));

  // Behind a proxy, as deployed: the client's address is the one it forwards.
  const redirector = await stack.start('redirector', { TRUST_PROXY: String(options.addresses !== 'loopback') });
  const baseline = await stack.startEntry('bench/dist/baseline-server.js', [mapFile]);
  const paths = [...links.keys()].map((slug) => `/${slug}`);
  let loads = 0;
  const load = (url: string, durationSeconds: number) =>
    runLoad(root, {
      url,
      connections: options.connections,
      durationSeconds,
      paths,
      headers: { 'user-agent': CHROME_UA, accept: 'text/html' },
      clientAddresses: { kind: options.addresses, seed: ++loads },
    });

  let answered = 0;
  let errors = 0;
  // Warm-up: every slug in the redirector's cache, both servers' code paths hot.
  const warm = await load(redirector.url, Math.min(3, options.durationSeconds));
  answered += warm.statusCounts['302'] ?? 0;
  await load(baseline.url, Math.min(3, options.durationSeconds));

  const runs: RedirectResult['runs'] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const [server, proc] of [
      ['redirector', redirector],
      ['baseline', baseline],
    ] as const) {
      const result = await load(proc.url, options.durationSeconds);
      if (server === 'redirector') answered += result.statusCounts['302'] ?? 0;
      errors += result.errors + result.timeouts + (result.requests - (result.statusCounts['302'] ?? 0));
      runs.push({
        server,
        requestsPerSecond: result.requestsPerSecond,
        p50Ms: result.latencyP50Ms,
        p99Ms: result.latencyP99Ms,
      });
    }
  }
  const metrics = await (await fetch(`${redirector.url}/metrics`)).text();
  const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const queued = counter('shortlink_clicks_queued_total');
  const dropped = counter('shortlink_clicks_dropped_total');
  // A graceful stop sends the queued clicks; then the projector loads them.
  await redirector.stop();
  await baseline.stop();
  const projector = await stack.start('projector');
  const counted = await settle(() => scalar(stack.clickhouse, 'SELECT count() AS n FROM clicks'), answered, 120_000);
  await projector.stop();

  const mean = (server: 'redirector' | 'baseline') => {
    const mine = runs.filter((r) => r.server === server);
    const avg = (f: (r: (typeof runs)[number]) => number) => round(mine.reduce((s, r) => s + f(r), 0) / mine.length);
    return {
      requestsPerSecond: avg((r) => r.requestsPerSecond),
      p50Ms: avg((r) => r.p50Ms),
      p99Ms: avg((r) => r.p99Ms),
    };
  };
  const ours = mean('redirector');
  const base = mean('baseline');
  return {
    addresses: options.addresses,
    runs,
    redirector: ours,
    baseline: base,
    throughputRatio: round(ours.requestsPerSecond / base.requestsPerSecond, 3),
    p99Ratio: round(ours.p99Ms / Math.max(base.p99Ms, 0.001), 3),
    humanRequestsAnswered: queued + dropped,
    redirectsReceivedByClient: answered,
    clicksDropped: dropped,
    clicksInClickHouse: counted,
    errors,
  };
}

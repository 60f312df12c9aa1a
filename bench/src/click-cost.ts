import type { ClientAddresses } from './client-addresses';
import { runLoad, round, sleep } from './measure';
import { CHROME_UA } from './redirect';
import { createLinks, type BenchStack } from './stack';
import { busiestThread, localBrokerPid, processCpuMs, threadCpuMs, threadCpuSince } from './thread-cpu';

export const CRAWLER_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

export interface ClickCostOptions {
  slugs: number;
  /** The offered load, the same for both kinds of traffic so that only the clicks differ. */
  ratePerSecond: number;
  durationSeconds: number;
  connections: number;
  /** A B A B: how many runs of each. */
  rounds: number;
  /** Where the clicks come from (client-addresses.ts). */
  addresses: ClientAddresses;
}

interface CostRun {
  traffic: 'crawler' | 'browser';
  requests: number;
  clicks: number;
  redirectorCpuMs: number;
  /** The redirector's main thread (the redirects themselves, and capturing each click). */
  redirectThreadCpuMs: number;
  /** Every other thread of the redirector, by thread id: the click worker, V8's and libuv's helpers. */
  otherThreadsCpuMs: Record<string, number>;
  brokerCpuMs: number | null;
}

export interface ClickCostResult {
  /** Where the clicks came from (client-addresses.ts); absent means loopback. */
  addresses: ClientAddresses;
  runs: CostRun[];
  /** Redirector CPU per redirect with no click recorded (a crawler), all its threads. */
  redirectUs: number;
  /** What a recorded click adds in the redirector: capture, hand-off, event building, encoding, producing. */
  redirectorUsPerClick: number;
  /**
   * The same, by thread: the redirect thread (capture and hand-off), the
   * click worker (the thread that took the most CPU in the browser runs:
   * events, encoding, producing) and the rest (garbage collection helpers).
   * Less noisy than the whole: a thread's time does not hold the others'
   * run-to-run variation.
   */
  byThreadUsPerClick: { redirectThread: number; clickWorker: number; otherThreads: number };
  /** What a recorded click adds in the Kafka broker; null when the broker is not the local one. */
  brokerUsPerClick: number | null;
  /** The click pipeline: everything a click adds, in every thread of the redirector and in the broker. */
  pipelineUsPerClick: number | null;
  clicksDropped: number;
}

/**
 * What one recorded click costs in CPU, every thread included: the redirector (servers mode, on Kafka) takes the same
 * load twice, from a crawler (answered, never counted) and from a desktop browser (every redirect a click), A B A B;
 * the difference in the redirector's and the broker's CPU a click is the click pipeline. The projectors do not run:
 * reading the topic is another service's cost (docs/decisions/0011-click-cost-measured-per-thread.md).
 */
export async function benchClickCost(
  root: string,
  stack: BenchStack,
  options: ClickCostOptions,
): Promise<ClickCostResult> {
  const writeApi = await stack.start('write-api');
  const links = await createLinks(writeApi.url, stack.key, options.slugs, 'c');
  await writeApi.stop();
  // Behind a proxy, as deployed: the client's address is the one it forwards.
  const redirector = await stack.start('redirector', { TRUST_PROXY: String(options.addresses !== 'loopback') });
  const brokerPid = localBrokerPid(root, stack.env.KAFKA_BROKERS ?? '');
  const paths = [...links.keys()].map((slug) => `/${slug}`);
  const metrics = async () => {
    const text = await (await fetch(`${redirector.url}/metrics`)).text();
    const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    return { queued: counter('shortlink_clicks_queued_total'), dropped: counter('shortlink_clicks_dropped_total') };
  };
  let loads = 0;
  const load = (userAgent: string, durationSeconds: number) =>
    runLoad(root, {
      url: redirector.url,
      connections: options.connections,
      durationSeconds,
      paths,
      ratePerSecond: options.ratePerSecond,
      headers: { 'user-agent': userAgent, accept: 'text/html' },
      // A new draw each run: `distinct` never repeats an address.
      clientAddresses: { kind: options.addresses, seed: ++loads },
    });

  // Warm-up: every slug cached, both code paths hot, the producer connected.
  await load(CRAWLER_UA, Math.min(2, options.durationSeconds));
  await load(CHROME_UA, Math.min(2, options.durationSeconds));
  await sleep(1000);

  const runs: CostRun[] = [];
  for (let r = 0; r < options.rounds; r++) {
    for (const traffic of ['crawler', 'browser'] as const) {
      const before = await metrics();
      const cpu0 = processCpuMs(redirector.pid);
      const main0 = processCpuMs(redirector.pid, String(redirector.pid));
      const threads0 = threadCpuMs(redirector.pid);
      const broker0 = brokerPid === null ? 0 : processCpuMs(brokerPid);
      const result = await load(traffic === 'crawler' ? CRAWLER_UA : CHROME_UA, options.durationSeconds);
      // The last batch goes out within the queue's flush interval; the same wait for both kinds.
      await sleep(1000);
      const cpu1 = processCpuMs(redirector.pid);
      const main1 = processCpuMs(redirector.pid, String(redirector.pid));
      const threads1 = threadCpuMs(redirector.pid);
      const broker1 = brokerPid === null ? 0 : processCpuMs(brokerPid);
      const after = await metrics();
      runs.push({
        traffic,
        requests: result.statusCounts['302'] ?? 0,
        clicks: after.queued - before.queued,
        redirectorCpuMs: cpu1 - cpu0,
        redirectThreadCpuMs: main1 - main0,
        otherThreadsCpuMs: threadCpuSince(threads0, threads1),
        brokerCpuMs: brokerPid === null ? null : broker1 - broker0,
      });
    }
  }
  const { dropped } = await metrics();
  await redirector.stop();

  const sum = (traffic: CostRun['traffic'], f: (run: CostRun) => number) =>
    runs.filter((run) => run.traffic === traffic).reduce((s, run) => s + f(run), 0);
  const perRequestUs = (traffic: CostRun['traffic'], f: (run: CostRun) => number) =>
    (sum(traffic, f) * 1000) /
    Math.max(
      1,
      sum(traffic, (run) => run.requests),
    );
  const clicksPerRequest =
    sum('browser', (run) => run.clicks) /
    Math.max(
      1,
      sum('browser', (run) => run.requests),
    );
  const added = (f: (run: CostRun) => number) =>
    (perRequestUs('browser', f) - perRequestUs('crawler', f)) / Math.max(clicksPerRequest, 1e-9);
  const redirectorUsPerClick = added((run) => run.redirectorCpuMs);
  const clickWorker = busiestThread(runs.filter((r) => r.traffic === 'browser').map((r) => r.otherThreadsCpuMs));
  const workerMs = (run: CostRun) => (clickWorker === undefined ? 0 : (run.otherThreadsCpuMs[clickWorker] ?? 0));
  const byThreadUsPerClick = {
    redirectThread: round(added((run) => run.redirectThreadCpuMs)),
    clickWorker: round(added(workerMs)),
    otherThreads: round(
      added((run) => Object.values(run.otherThreadsCpuMs).reduce((s, ms) => s + ms, 0) - workerMs(run)),
    ),
  };
  const brokerUsPerClick = brokerPid === null ? null : added((run) => run.brokerCpuMs ?? 0);
  return {
    addresses: options.addresses,
    runs,
    redirectUs: round(perRequestUs('crawler', (run) => run.redirectorCpuMs)),
    redirectorUsPerClick: round(redirectorUsPerClick),
    byThreadUsPerClick,
    brokerUsPerClick: brokerUsPerClick === null ? null : round(brokerUsPerClick),
    pipelineUsPerClick: brokerUsPerClick === null ? null : round(redirectorUsPerClick + brokerUsPerClick),
    clicksDropped: dropped,
  };
}

import { randomUUID } from 'node:crypto';
import { clickEventIds, workerClickSink, type RawClick } from '@shortlink/service-redirector';
import { clientAddressSampler, type ClientAddresses } from './client-addresses';
import { quiet, round, sleep } from './measure';
import { CHROME_UA } from './redirect';
import type { BenchStack } from './stack';
import { busiestThread, localBrokerPid, processCpuMs, threadCpuMs, threadCpuSince } from './thread-cpu';

export interface ClickWorkerOptions {
  links: number;
  ratePerSecond: number;
  /** Each window's length: one with clicks, one without, the same length. */
  durationSeconds: number;
  /** Idle, clicks, idle, clicks…: how many of each. */
  rounds: number;
  /**
   * Clicks at the rate before the first window. Long enough for the steady
   * state: the worker's remembered addresses full and its old generation
   * collected at least once, after about 40 s of clicks: a worker's cost
   * settles only then (docs/decisions/0011-click-cost-measured-per-thread.md).
   */
  warmUpSeconds: number;
  addresses: ClientAddresses;
}

interface WorkerWindow {
  clicks: number;
  /** The pushing thread: taking each click, its columns and their `postMessage` (the redirect thread's share). */
  mainThreadCpuMs: number;
  otherThreadsCpuMs: Record<string, number>;
  brokerCpuMs: number | null;
}

export interface ClickWorkerResult {
  addresses: ClientAddresses;
  ratePerSecond: number;
  runs: { idle: WorkerWindow; clicking: WorkerWindow }[];
  /**
   * What a click adds, by thread, the same window without clicks taken
   * away: the hand-off on the pushing thread, the click worker (the thread
   * that took the most CPU while clicking), the others (V8's helpers), the
   * broker, and their sum.
   */
  usPerClick: {
    handOff: number;
    clickWorker: number;
    otherThreads: number;
    broker: number | null;
    pipeline: number | null;
  };
  clicksSent: number;
  clicksDropped: number;
}

/**
 * The click pipeline without the redirects: the redirector's own click sink (its worker thread and kafkajs producer) in
 * this process, fed captured clicks at a fixed rate on `links` links, each thread's CPU read from /proc. Inside a
 * redirector under HTTP load, the redirect thread's and the broker's shares move by more than a change to the worker
 * does; here nothing else runs, and a window without clicks just before is subtracted from each window with them. The
 * clicks are made before each window, so the pushing thread's time is the sink's
 * (docs/decisions/0011-click-cost-measured-per-thread.md).
 */
export async function benchClickWorker(
  root: string,
  stack: BenchStack,
  options: ClickWorkerOptions,
): Promise<ClickWorkerResult> {
  const brokers = stack.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
  const eventIds = clickEventIds();
  const sink = workerClickSink({
    brokers: brokers.split(','),
    clientId: 'bench-click-worker',
    topic: stack.names.topics.clicks,
    visitorSecret: 'bench-visitor-secret-0123456789',
    eventIdPrefix: eventIds.prefix,
    logger: quiet,
  });
  await sink.start();
  const brokerPid = localBrokerPid(root, brokers);
  const links = Array.from({ length: options.links }, (_, i) => ({
    linkId: randomUUID(),
    accountId: stack.accountId,
    slug: `w${i}`,
  }));
  let draws = 0;
  const makeClicks = (count: number): RawClick[] => {
    const address = clientAddressSampler(options.addresses, ++draws);
    return Array.from({ length: count }, (_, i) => {
      const link = links[i % links.length]!;
      return {
        sequence: 0,
        ...link,
        clickedAt: 0,
        ip: address() ?? '127.0.0.1',
        userAgent: CHROME_UA,
        referer: undefined,
        scanned: false,
      };
    });
  };
  /** Pushes the clicks at the rate, in ticks of 10 ms, as redirects would. */
  const feed = async (clicks: RawClick[]): Promise<void> => {
    const start = Date.now();
    let pushed = 0;
    while (pushed < clicks.length) {
      const due = Math.min(clicks.length, Math.floor(((Date.now() - start) * options.ratePerSecond) / 1000));
      for (; pushed < due; pushed++) {
        const click = clicks[pushed]!;
        click.sequence = eventIds.next();
        click.clickedAt = Date.now();
        sink.push(click);
      }
      await sleep(10);
    }
  };
  /** A window of the part's length, with these clicks fed at the rate, or none. */
  const window = async (clicks?: RawClick[]): Promise<WorkerWindow> => {
    const main0 = processCpuMs(process.pid, String(process.pid));
    const threads0 = threadCpuMs(process.pid);
    const broker0 = brokerPid === null ? 0 : processCpuMs(brokerPid);
    if (clicks) await feed(clicks);
    else await sleep(options.durationSeconds * 1000);
    // The last batch goes out within the queue's flush interval; the same wait for both windows.
    await sleep(1000);
    const main1 = processCpuMs(process.pid, String(process.pid));
    const threads1 = threadCpuMs(process.pid);
    const broker1 = brokerPid === null ? 0 : processCpuMs(brokerPid);
    return {
      clicks: clicks?.length ?? 0,
      mainThreadCpuMs: main1 - main0,
      otherThreadsCpuMs: threadCpuSince(threads0, threads1),
      brokerCpuMs: brokerPid === null ? null : broker1 - broker0,
    };
  };

  const count = options.ratePerSecond * options.durationSeconds;
  const runs: ClickWorkerResult['runs'] = [];
  try {
    // Warm-up: the worker's code optimized, the producer's connections open, its heap in its steady state.
    await feed(makeClicks(options.ratePerSecond * options.warmUpSeconds));
    await sink.flush();
    for (let r = 0; r < options.rounds; r++) {
      const idle = await window();
      const clicks = makeClicks(count);
      const clicking = await window(clicks);
      runs.push({ idle, clicking });
    }
    await sink.flush();
  } finally {
    await sink.stop(10_000);
  }

  const worker = busiestThread(runs.map((run) => run.clicking.otherThreadsCpuMs));
  const workerMs = (w: WorkerWindow) => (worker === undefined ? 0 : (w.otherThreadsCpuMs[worker] ?? 0));
  const othersMs = (w: WorkerWindow) => Object.values(w.otherThreadsCpuMs).reduce((s, ms) => s + ms, 0) - workerMs(w);
  const clicks = runs.reduce((s, run) => s + run.clicking.clicks, 0);
  const added = (f: (w: WorkerWindow) => number) =>
    round((runs.reduce((s, run) => s + f(run.clicking) - f(run.idle), 0) * 1000) / Math.max(1, clicks));
  const handOff = added((w) => w.mainThreadCpuMs);
  const clickWorker = added(workerMs);
  const otherThreads = added(othersMs);
  const broker = brokerPid === null ? null : added((w) => w.brokerCpuMs ?? 0);
  return {
    addresses: options.addresses,
    ratePerSecond: options.ratePerSecond,
    runs,
    usPerClick: {
      handOff,
      clickWorker,
      otherThreads,
      broker,
      pipeline: broker === null ? null : round(handOff + clickWorker + otherThreads + broker),
    },
    clicksSent: sink.stats.sent,
    clicksDropped: sink.stats.dropped,
  };
}

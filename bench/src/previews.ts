import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, type LinkCreated } from '@shortlink/events';
import { appendEvents } from '@shortlink/event-log';
import { percentiles, round, sleep } from './measure';
import { watchPreviews, workerJoined } from './preview-watch';
import { seededRandom } from './seeded-random';
import type { BenchStack } from './stack';

export interface PreviewsResult {
  backlog: number;
  hosts: number;
  pagesPerHost: number;
  /** From the worker holding its partitions to the last backlog link's preview on the topic. */
  drainSeconds: number;
  linksPerSecond: number;
  /** Destinations the worker fetched, and links served by a fetch under way or from its cache. */
  sources: { fetch: number; shared: number; cache: number };
  /**
   * Links created through the API while the backlog drained: from the request
   * sent to the preview's event read off the topic (a link never previewed
   * counts with what it waited until the end).
   */
  fresh: { created: number; previewed: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number };
  /**
   * The new links that waited longest (the slowest 5 %), to tell why: when
   * each was sent (seconds after the worker joined), its host's kind, its
   * page's (`hangs`, `404`, `page`), what the API took to create it, and what it waited in all.
   */
  slowestFresh: { sentAtS: number; host: Profile; page: 'hangs' | '404' | 'page'; createMs: number; waitMs: number }[];
  /** The worker's resident memory at its highest, sampled each second. */
  peakRssMiB: number;
}

export interface PreviewsOptions {
  backlog: number;
  /** Page servers, each on its own port: a host to the worker. */
  hosts: number;
  pagesPerHost: number;
  /** Links created through the API each second while the backlog drains. */
  freshPerSecond: number;
  /** Some pages never answer (the worker's 5 s timeout, three times). */
  hangingPages: boolean;
}

type Profile = 'quick' | 'slow' | 'flaky' | 'down';

interface PageHost {
  origin: string;
  profile: Profile;
  /** Share of the links pointing at it. */
  weight: number;
  close(): Promise<void>;
}

/**
 * The kind of host by its place in the list: most answer in 50-400 ms, one in
 * five takes 0.5-2 s, one fails now and then (HTTP 500, retried), and one is
 * down (HTTP 503 every time: three attempts, then a failed preview).
 */
function profileOf(i: number): Profile {
  if (i === 11) return 'down';
  if (i === 6) return 'flaky';
  return i % 5 === 2 ? 'slow' : 'quick';
}

/**
 * Page `n` of a host: 1 in 100 never answers (when hanging pages are on), 1 in
 * 50 is a 404; the others are a small HTML page with Open Graph tags.
 */
async function startPageHost(i: number, weight: number, hangingPages: boolean): Promise<PageHost> {
  const profile = profileOf(i);
  const rand = seededRandom(1000 + i);
  const [low, high] = profile === 'slow' ? [500, 2000] : [50, 400];
  const server = http.createServer((req, res) => {
    const n = Number(/\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    if (hangingPages && n % 100 === 99) return; // held until the worker gives up
    const latency = low + rand() * (high - low);
    setTimeout(() => {
      if (profile === 'down') return void res.writeHead(503).end();
      if (profile === 'flaky' && rand() < 0.2) return void res.writeHead(500).end();
      if (n % 50 === 7) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><head><title>Page ${n} of host ${i}</title>
        <meta property="og:title" content="Page ${n} of host ${i}">
        <meta property="og:description" content="A page the preview bench serves after ${Math.round(latency)} ms.">
        <meta property="og:image" content="/images/${n}.png"></head><body>${'<p>text</p>'.repeat(200)}</body></html>`,
      );
    }, latency);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    profile,
    weight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A host picked by weight: a few hosts hold most links (weights 1, 1/2, 1/3, …). */
function hostPicker(hosts: PageHost[], rand: () => number): () => PageHost {
  const total = hosts.reduce((sum, h) => sum + h.weight, 0);
  return () => {
    let r = rand() * total;
    for (const host of hosts) {
      r -= host.weight;
      if (r < 0) return host;
    }
    return hosts[hosts.length - 1]!;
  };
}

/**
 * A bulk import's backlog, then new links while it drains. The backlog (`LinkCreated` produced straight to the links
 * topic) points at the page hosts, each link at one of `pagesPerHost` pages of a host picked by weight, so many links
 * share a destination and a few hosts hold most. Meanwhile links are created through the write API, each to a new page;
 * a consumer of the links topic notes when each preview lands.
 */
export async function benchPreviews(stack: BenchStack, options: PreviewsOptions): Promise<PreviewsResult> {
  const hosts = await Promise.all(
    Array.from({ length: options.hosts }, (_, i) => startPageHost(i, 1 / (i + 1), options.hangingPages)),
  );
  const rand = seededRandom(42);
  const pickHost = hostPicker(hosts, rand);
  const topic = stack.names.topics.links;

  // The backlog, on the topic before the worker starts.
  const backlogIds = new Set<string>();
  const events = Array.from({ length: options.backlog }, (_, i) => {
    const host = pickHost();
    const page = Math.floor(rand() * options.pagesPerHost);
    const linkId = randomUUID();
    backlogIds.add(linkId);
    return createEvent<LinkCreated>(
      'LinkCreated',
      1,
      {
        linkId,
        accountId: stack.accountId,
        slug: `backlog-${i}`,
        destinationUrl: `${host.origin}/pages/${page}`,
        tag: null,
      },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    );
  });
  const producer = stack.kafka.producer();
  await producer.connect();
  for (let from = 0; from < events.length; from += 2000) {
    await appendEvents(producer, topic, events.slice(from, from + 2000), (e) => e.data.slug);
  }
  await producer.disconnect();

  // Where each preview lands, by link id.
  let backlogPreviewed = 0;
  let lastBacklogPreview = 0;
  const watcher = await watchPreviews(stack);
  const { previewedAt } = watcher;
  watcher.onPreview((linkId, at) => {
    if (!backlogIds.has(linkId)) return;
    backlogPreviewed++;
    lastBacklogPreview = at;
  });

  const writeApi = await stack.start('write-api');
  const worker = await stack.start('preview-worker', { PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true' });
  let peakRss = 0;
  const scrape = async () => {
    const text = await (await fetch(`${worker.url}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    peakRss = Math.max(peakRss, value(/^shortlink_process_resident_memory_bytes (\S+)$/m));
    return {
      fetch: value(/^shortlink_preview_sources_total\{source="fetch"\} (\S+)$/m),
      shared: value(/^shortlink_preview_sources_total\{source="shared"\} (\S+)$/m),
      cache: value(/^shortlink_preview_sources_total\{source="cache"\} (\S+)$/m),
    };
  };
  await workerJoined(stack);
  const started = Date.now();

  // New links through the API while the backlog drains, each to a page no link had before.
  const fresh: { linkId: string; sentAt: number; createMs: number; host: Profile; page: number }[] = [];
  const creating = (async () => {
    for (let i = 0; backlogPreviewed < options.backlog; i++) {
      const tick = performance.now();
      const host = pickHost();
      const sentAt = Date.now();
      const res = await fetch(`${writeApi.url}/api/v1/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${host.origin}/fresh/${i}`, customSlug: `fresh-${i}` }),
      });
      if (res.status !== 201) throw new Error(`creating fresh-${i}: HTTP ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      fresh.push({ linkId: id, sentAt, createMs: Date.now() - sentAt, host: host.profile, page: i });
      await sleep(Math.max(0, 1000 / options.freshPerSecond - (performance.now() - tick)));
    }
  })();
  const sampling = setInterval(() => void scrape().catch(() => undefined), 1000);
  try {
    while (backlogPreviewed < options.backlog) {
      if (Date.now() - started > 900_000) throw new Error(`backlog stalled at ${backlogPreviewed} previews`);
      await sleep(100);
    }
    await creating;
    // The last new links' previews: a page that never answers takes 19 s to give up on.
    const deadline = Date.now() + 30_000;
    while (fresh.some((f) => !previewedAt.has(f.linkId)) && Date.now() < deadline) await sleep(100);
  } finally {
    clearInterval(sampling);
  }
  const sources = await scrape();
  await watcher.stop();
  await Promise.all([worker.stop(), writeApi.stop()]);
  await Promise.all(hosts.map((h) => h.close()));

  const drainSeconds = (lastBacklogPreview - started) / 1000;
  // A link still without a preview counts with what it waited so far: the figures are then a lower bound.
  const ended = Date.now();
  const waits = fresh.map((f) => (previewedAt.get(f.linkId) ?? ended) - f.sentAt);
  const previewed = fresh.filter((f) => previewedAt.has(f.linkId)).length;
  const p = percentiles(waits);
  return {
    backlog: options.backlog,
    hosts: options.hosts,
    pagesPerHost: options.pagesPerHost,
    drainSeconds: round(drainSeconds),
    linksPerSecond: round(options.backlog / drainSeconds),
    sources,
    fresh: {
      created: fresh.length,
      previewed,
      p50Ms: p.p50,
      p95Ms: p.p95,
      p99Ms: p.p99,
      maxMs: p.max,
    },
    peakRssMiB: round(peakRss / 2 ** 20, 0),
    slowestFresh: fresh
      .map((f, i) => ({ f, waitMs: waits[i]! }))
      .sort((a, b) => b.waitMs - a.waitMs)
      .slice(0, Math.ceil(fresh.length / 20))
      .map(({ f, waitMs }) => ({
        sentAtS: round((f.sentAt - started) / 1000),
        host: f.host,
        page: options.hangingPages && f.page % 100 === 99 ? 'hangs' : f.page % 50 === 7 ? '404' : 'page',
        createMs: f.createMs,
        waitMs,
      })),
  };
}

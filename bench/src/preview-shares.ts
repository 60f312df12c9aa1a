import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createEvent, type LinkCreated } from '@shortlink/events';
import { appendEvents } from '@shortlink/event-log';
import { percentiles, sleep } from './measure';
import { watchPreviews, workerJoined } from './preview-watch';
import type { BenchStack } from './stack';

export interface PreviewSharesResult {
  /** Account A's links, each to a server of its own that accepts the connection and never answers. */
  hangingLinks: number;
  /** The bursts they came in, one every `intervalMs`. */
  bursts: number;
  /** Account B's links, one `intervalMs / 2` after each burst, each to a page that answers in 100 ms. */
  otherLinks: number;
  intervalMs: number;
  /** B's links: from the link's record to its preview's (a link never previewed counts with what it waited). */
  other: { previewed: number; p50Ms: number; p95Ms: number; maxMs: number };
}

export interface PreviewSharesOptions {
  bursts: number;
  linksPerBurst: number;
  intervalMs: number;
}

const listen = (server: net.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/**
 * One account's links to servers that never answer, each on a host (a port) of its own, in bursts as a bulk import
 * sends them, and between the bursts another account's links to a page that answers. Each of A's fetches holds a slot 5
 * s an attempt, three attempts; without a share per account they would take every slot and B's fresh link would wait
 * among thousands. Both accounts' `LinkCreated` go straight to the links topic; a consumer notes when each preview
 * lands (docs/decisions/0058-preview-fetches-shared-by-account.md).
 */
export async function benchPreviewShares(
  stack: BenchStack,
  options: PreviewSharesOptions,
): Promise<PreviewSharesResult> {
  const hanging = options.bursts * options.linksPerBurst;
  const held = new Set<net.Socket>();
  const silent: net.Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < hanging; i++) {
    const server = net.createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    silent.push(server);
    ports.push(await listen(server));
  }
  const page = http.createServer((req, res) =>
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title>`), 100),
  );
  const pagePort = await listen(page);

  const watcher = await watchPreviews(stack);
  const worker = await stack.start('preview-worker', { PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true' });
  await workerJoined(stack);
  const producer = stack.kafka.producer();
  await producer.connect();
  const [accountA, accountB] = [randomUUID(), randomUUID()];
  const created = (accountId: string, slug: string, destinationUrl: string) =>
    createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId: randomUUID(), accountId, slug, destinationUrl, tag: null },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    );
  const produce = (events: LinkCreated[]) =>
    appendEvents(producer, stack.names.topics.links, events, (e) => e.data.slug);

  const other: { linkId: string; sentAt: number }[] = [];
  try {
    for (let burst = 0; burst < options.bursts; burst++) {
      const tick = Date.now();
      await produce(
        Array.from({ length: options.linksPerBurst }, (_, k) => {
          const n = burst * options.linksPerBurst + k;
          return created(accountA, `hang-${n}`, `http://127.0.0.1:${ports[n]}/`);
        }),
      );
      await sleep(Math.max(0, tick + options.intervalMs / 2 - Date.now()));
      const link = created(accountB, `other-${burst}`, `http://127.0.0.1:${pagePort}/other/${burst}`);
      other.push({ linkId: link.data.linkId, sentAt: Date.now() });
      await produce([link]);
      await sleep(Math.max(0, tick + options.intervalMs - Date.now()));
    }
    // B's last previews; without shares they come minutes late, and count with what they waited.
    const deadline = Date.now() + 60_000;
    while (other.some((o) => !watcher.previewedAt.has(o.linkId)) && Date.now() < deadline) await sleep(100);
  } finally {
    await producer.disconnect();
    await watcher.stop();
    await worker.stop();
    for (const socket of held) socket.destroy();
    await Promise.all([...silent, page].map((s) => new Promise((resolve) => s.close(resolve))));
  }
  const ended = Date.now();
  const waits = other.map((o) => (watcher.previewedAt.get(o.linkId) ?? ended) - o.sentAt);
  const p = percentiles(waits);
  return {
    hangingLinks: hanging,
    bursts: options.bursts,
    otherLinks: other.length,
    intervalMs: options.intervalMs,
    other: {
      previewed: other.filter((o) => watcher.previewedAt.has(o.linkId)).length,
      p50Ms: p.p50,
      p95Ms: p.p95,
      maxMs: p.max,
    },
  };
}

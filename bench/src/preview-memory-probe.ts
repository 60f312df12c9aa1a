/**
 * `node --expose-gc bench/dist/preview-memory-probe.js <links> <distinct|shared> [kafka|embedded]` (the
 * `preview-memory` part): the preview worker over a fresh links topic, every page host holding its requests, so every
 * link stays pending; prints one JSON line, the memory they cost after a full GC. On Kafka the links are produced by a
 * child process, against the worker with none pending; on the embedded log they are appended first, and the worker's
 * start counts with them.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEvent, type LinkCreated } from '@shortlink/events';
import {
  appendEvents,
  DEFAULT_PARTITIONS,
  ensureTopics,
  kafkaNames,
  openKafka,
  topicSpecs,
  type EventLogClient,
  type KafkaNames,
} from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { composePreviewWorker } from '@shortlink/service-preview-worker';
import { uniqueSuffix } from '@shortlink/testing';
import { quiet, sleep } from './measure';

export interface PreviewMemoryProbe {
  links: number;
  destinations: 'distinct' | 'shared';
  log: 'kafka' | 'embedded';
  /** After a full GC, with the links pending, minus the same with none: per link. */
  heapBytesPerLink: number;
  /** Buffers (outside the JS heap): what the records kept alive. */
  externalBytesPerLink: number;
  bytesPerLink: number;
  rssMiBBefore: number;
  rssMiBAfter: number;
}

const HOSTS = 20;
/** Pages per host when links share destinations (the previews part's shape: most links share one). */
const SHARED_PAGES = 200;

/** A page host that takes requests and never answers them: what it is asked for stays pending. */
async function hangingHost(): Promise<{ origin: string; close(): void }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function measure(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage();
}

const brokers = () => (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/** `produce <prefix> <links> <distinct|shared> <origin>...`: the links, `LinkCreated` straight to the topic. */
async function produce(
  log: EventLogClient,
  names: KafkaNames,
  links: number,
  destinations: string,
  origins: string[],
): Promise<void> {
  const producer = log.producer();
  await producer.connect();
  for (let from = 0; from < links; from += 2000) {
    const events = Array.from({ length: Math.min(2000, links - from) }, (_, j) => {
      const i = from + j;
      const page = destinations === 'shared' ? Math.floor(i / origins.length) % SHARED_PAGES : i;
      return createEvent<LinkCreated>(
        'LinkCreated',
        1,
        {
          linkId: randomUUID(),
          accountId: randomUUID(),
          slug: `bulk-${i}`,
          destinationUrl: `${origins[i % origins.length]}/pages/${page}`,
          tag: null,
        },
        { eventId: randomUUID(), occurredAt: new Date().toISOString() },
      );
    });
    await appendEvents(producer, names.topics.links, events, (e) => e.data.slug);
  }
  await producer.disconnect();
}

function produceInChild(prefix: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [__filename, 'produce', prefix, ...args], (error, _stdout, stderr) =>
      error ? reject(new Error(`producing the links failed: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

async function main(): Promise<void> {
  if (process.argv[2] === 'produce') {
    const [prefix, links, destinations, ...origins] = process.argv.slice(3);
    const names = kafkaNames(prefix);
    const log = await openKafka({ brokers: brokers(), clientId: 'bench-preview-memory-links', logger: quiet, names });
    return produce(log, names, Number(links), destinations!, origins);
  }
  const links = Number(process.argv[2] ?? 100_000);
  const destinations = process.argv[3] === 'shared' ? 'shared' : 'distinct';
  const logKind = process.argv[4] === 'embedded' ? 'embedded' : 'kafka';
  const prefix = `bench-${uniqueSuffix()}.`;
  const names = kafkaNames(prefix);
  const dataDir = logKind === 'embedded' ? await mkdtemp(join(tmpdir(), 'bench-preview-memory-')) : undefined;
  let log: EventLogClient;
  if (dataDir) {
    // Loaded only here: the package brings the embedded stores' code (PGlite's among it), a hundred MiB of RSS.
    const { embeddedLogClient, EventLog } = await import('@shortlink/event-log');
    log = embeddedLogClient(await EventLog.open(dataDir));
    await ensureTopics(log, topicSpecs(names, DEFAULT_PARTITIONS));
  } else {
    log = await openKafka({ brokers: brokers(), clientId: 'bench-preview-memory', logger: quiet, names });
  }
  // Counts the records the worker has taken: a batch handler returns once its records are in hand.
  let taken = 0;
  const kafka: EventLogClient = {
    ...log,
    consume: (subscription, eachBatch) =>
      log.consume(subscription, async (batch, control) => {
        await eachBatch(batch, control);
        taken += batch.records.length;
      }),
  };
  const hosts = await Promise.all(Array.from({ length: HOSTS }, hangingHost));
  const origins = hosts.map((h) => h.origin);
  const worker = composePreviewWorker(
    {
      PREVIEW_ALLOW_PRIVATE_NETWORKS: true,
      PREVIEW_CONCURRENCY: 256,
      PREVIEW_PER_HOST_CONCURRENCY: 6,
      PREVIEW_CACHE_SECONDS: 600,
      PREVIEW_MAX_PENDING: links,
      PUBLIC_BASE_URL: 'https://sho.rt',
      KAFKA_SESSION_TIMEOUT_MS: 30_000,
    },
    { kafka, names, logger: quiet, metrics: createMetricsRegistry({ processMetrics: false }) },
    // A fetch outlives the measure: nothing times out and settles meanwhile.
    { fetchPolicy: { timeoutMs: 3_600_000 } },
  );
  let before: NodeJS.MemoryUsage;
  if (dataDir) {
    await produce(log, names, links, destinations, origins);
    before = measure();
    await worker.start?.();
  } else {
    await worker.start?.();
    const admin = log.admin();
    await admin.connect();
    for (let i = 0; i < 300 && !(await admin.groupIsActive(names.groups.previewWorker)); i++) await sleep(100);
    await admin.disconnect();
    await sleep(1000);
    before = measure();
    await produceInChild(prefix, [String(links), destinations, ...origins]);
  }
  const deadline = Date.now() + 300_000;
  while (taken < links) {
    if (Date.now() > deadline) throw new Error(`only ${taken} of ${links} links taken in hand`);
    await sleep(200);
  }
  await sleep(1000);
  const after = measure();

  const per = (field: 'heapUsed' | 'external') => Math.round((after[field] - before[field]) / links);
  const result: PreviewMemoryProbe = {
    links,
    destinations,
    log: logKind,
    heapBytesPerLink: per('heapUsed'),
    externalBytesPerLink: per('external'),
    bytesPerLink: per('heapUsed') + per('external'),
    rssMiBBefore: Math.round(before.rss / 2 ** 20),
    rssMiBAfter: Math.round(after.rss / 2 ** 20),
  };
  // The links still wait for their pages: stopping gives them up, uncommitted.
  for (const host of hosts) host.close();
  await worker.stop?.();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeClickRecord } from '@shortlink/events';
import {
  clickEventId,
  clickEventIds,
  workerClickSink,
  type ClickSink,
  type RawClick,
  type WorkerClickSinkOptions,
} from '@shortlink/service-redirector';
import { eventually } from '@shortlink/testing';
import { openTestInfra, silentLogger, type TestInfra } from './support/link-system';
import { buildOnce, ROOT } from './support/processes';

const WORKER = join(ROOT, 'services', 'redirector', 'dist', 'clicks', 'click-worker.js');
const ACCOUNT = randomUUID();
const IDS = clickEventIds();
/** The event id the worker writes for a click: what the topic must hold. */
const idOf = (click: RawClick) => clickEventId(IDS.prefix, click.clickedAt, click.sequence);

function raw(link: string, n: number): RawClick {
  return {
    sequence: IDS.next(),
    linkId: link,
    accountId: ACCOUNT,
    slug: 'worker',
    clickedAt: Date.UTC(2026, 10, 20, 12, 0, 0, n % 1000),
    ip: n % 2 === 0 ? '8.8.8.8' : `10.0.${n % 200}.1`,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    referer: n % 3 === 0 ? undefined : 'https://news.example/item?id=1',
    scanned: n % 5 === 0,
  };
}

/** Fault-injecting workers that run the real one behind them (plain JavaScript, as a worker thread needs). */
const FAULTY_WORKERS = join(ROOT, 'test', 'support', 'workers');

/**
 * The redirector's click worker thread (the built one, as production runs it)
 * against the real Kafka broker: what the redirect thread hands over is on the
 * clicks topic once, also when the worker dies after Kafka acknowledged a batch
 * and before the redirect thread heard of it.
 */
describe('click worker thread', () => {
  let infra: TestInfra;
  let scratch: string;

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    scratch = await mkdtemp(join(tmpdir(), 'click-worker-'));
  });

  afterAll(async () => {
    await infra?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const options = (over: Partial<WorkerClickSinkOptions> = {}): WorkerClickSinkOptions => ({
    brokers: infra.brokers,
    clientId: 'test-clicks',
    topic: infra.names.topics.clicks,
    visitorSecret: 'test-visitor-secret-0123456789',
    eventIdPrefix: IDS.prefix,
    logger: silentLogger,
    workerFile: WORKER,
    ...over,
  });

  /** Every ClickRecorded on the clicks topic for one link, in topic order. */
  async function onTopic(link: string, atLeast: number) {
    const consumer = infra.kafka.consumer({ groupId: `reader-${randomUUID()}` });
    const seen: { eventId: string; visitorHash: string; country: string; referrer: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: infra.names.topics.clicks, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        // Several clicks a record, one a line (shortlink.clicks.v2).
        for (const { result } of decodeClickRecord(message.value)) {
          if (!result.ok) throw new Error(`not a ClickRecorded: ${result.detail}`);
          if (result.event.data.linkId !== link) continue;
          const { visitorHash, country, referrer } = result.event.data;
          seen.push({ eventId: result.event.eventId, visitorHash, country, referrer });
        }
      },
    });
    try {
      await eventually(
        async () => (seen.length >= atLeast ? true : undefined),
        30_000,
        `${atLeast} clicks on the topic`,
      );
      // Anything beyond what was awaited (a duplicate) would arrive right behind it.
      await new Promise((r) => setTimeout(r, 1000));
      return [...seen];
    } finally {
      await consumer.disconnect();
    }
  }

  /** Hands `count` clicks of a new link to the sink, waits until Kafka acknowledged them all, and stops it. */
  async function deliverThrough(sink: ClickSink, count: number) {
    const link = randomUUID();
    const clicks = Array.from({ length: count }, (_, n) => raw(link, n));
    try {
      await sink.start();
      for (const click of clicks) sink.push(click);
      // Polled rather than `flush()`, so that a lost batch fails the test instead of hanging it.
      await eventually(async () => (sink.depth === 0 ? true : undefined), 30_000, 'every click acknowledged');
    } finally {
      await sink.stop(5000);
    }
    return { link, clicks };
  }

  it('puts every click it was handed on the topic once, as ClickRecorded events, and stop sends what is held', async () => {
    const sink = workerClickSink(options());
    const link = randomUUID();
    const clicks = Array.from({ length: 2500 }, (_, n) => raw(link, n));
    try {
      await sink.start();
      for (const click of clicks) sink.push(click);
    } finally {
      await sink.stop(5000);
    }
    expect(sink.stats).toEqual({ queued: 2500, sent: 2500, dropped: 0, rejected: 0, failedSends: 0 });
    expect(sink.depth).toBe(0);
    expect(sink.workerRestarts).toBe(0);

    const seen = await onTopic(link, 2500);
    expect(seen).toHaveLength(2500);
    expect(new Set(seen.map((s) => s.eventId))).toEqual(new Set(clicks.map(idOf)));
    // Enriched in the worker: keyed hash, country, referrer origin; never the raw IP.
    const first = seen.find((s) => s.eventId === idOf(clicks[0]!))!;
    expect(first).toMatchObject({ country: 'US', referrer: 'Direct' });
    expect(first.visitorHash).toMatch(/^[0-9a-f]{64}$/);
    expect(seen.find((s) => s.eventId === idOf(clicks[1]!))).toMatchObject({
      country: 'XX',
      referrer: 'https://news.example',
    });

    // Stopped: further clicks are refused and counted, not silently kept.
    sink.push(raw(link, 9999));
    expect(sink.stats.dropped).toBe(1);
  });

  it('leaves out a click it cannot write and sends the rest of its batch, without a retry or a restart', async () => {
    // A click the capture should never have let through (an address unknown to Node).
    const sink = workerClickSink(options());
    const link = randomUUID();
    const clicks = Array.from({ length: 300 }, (_, n) => raw(link, n));
    const broken = { ...raw(link, 300), ip: undefined as unknown as string };
    try {
      await sink.start();
      clicks.slice(0, 150).forEach((click) => sink.push(click));
      sink.push(broken);
      clicks.slice(150).forEach((click) => sink.push(click));
      await eventually(async () => (sink.depth === 0 ? true : undefined), 30_000, 'every click settled');
    } finally {
      await sink.stop(5000);
    }
    expect(sink.stats).toEqual({ queued: 301, sent: 300, dropped: 0, rejected: 1, failedSends: 0 });
    expect(sink.workerRestarts).toBe(0);
    const seen = await onTopic(link, 300);
    expect(seen.map((s) => s.eventId).sort()).toEqual(clicks.map(idOf).sort());
  });

  it('replaces a worker that dies after Kafka acknowledged a batch, and resends it as the same events', async () => {
    const marker = join(scratch, 'crashed');
    const sink = workerClickSink(
      options({ workerFile: join(FAULTY_WORKERS, 'crash-once-after-ack.js'), workerArgs: [WORKER, marker] }),
    );
    const { link, clicks } = await deliverThrough(sink, 1500);
    expect(sink.stats.sent).toBe(1500);
    expect(sink.workerRestarts).toBe(1);

    const seen = await onTopic(link, 1500);
    const ids = seen.map((s) => s.eventId);
    // The first batch was written twice (the crash hid its acknowledgement)...
    expect(ids.length).toBeGreaterThan(1500);
    // ...as the same events, which the projector deduplicates: none lost, none new.
    expect(new Set(ids)).toEqual(new Set(clicks.map(idOf)));
  });

  it('keeps the clicks and tries again when a replacement worker cannot reach Kafka', async () => {
    const counter = join(scratch, 'instances');
    await writeFile(counter, '');
    // First worker: dies after Kafka acknowledged its first batch. Second: cannot
    // connect. Third and later: the real worker.
    const sink = workerClickSink(
      options({ workerFile: join(FAULTY_WORKERS, 'flaky.js'), workerArgs: [WORKER, counter] }),
    );
    const { link, clicks } = await deliverThrough(sink, 1200);
    expect(sink.stats.sent).toBe(1200);
    expect(sink.workerRestarts).toBe(2);
    const seen = await onTopic(link, 1200);
    expect(new Set(seen.map((s) => s.eventId))).toEqual(new Set(clicks.map(idOf)));
  });

  it('fails to start with a clear error when Kafka cannot be reached', async () => {
    const sink = workerClickSink(options({ brokers: ['127.0.0.1:1'] }));
    await expect(sink.start()).rejects.toThrow(/click worker could not connect to Kafka/);
    await sink.stop(100);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { createEvent, type ClickRecorded } from '@shortlink/events';
import type { OutgoingRecord } from '@shortlink/event-log';
import { clickRecords, eventLinesOf } from '@shortlink/service-redirector';
import { CHROME_UA } from './redirect';
import { percentiles, round, sleep } from './measure';
import { createLinks, scalar, type BenchStack } from './stack';

export interface IngestionResult {
  clicks: number;
  producedPerSecond: number;
  /** Produced to visible in the fact table and every view, end to end. */
  clicksPerSecond: number;
  seconds: number;
  freshness: { p50Ms: number; p99Ms: number; maxMs: number; samples: number; backgroundClicksPerSecond: number };
}

const UAS = [
  CHROME_UA,
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
];
const REFERRERS = ['Direct', 'https://news.ycombinator.com', 'https://www.google.com', 'https://t.co'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'NL', 'XX'];

/** Clicks as the redirectors write them: several a record (shortlink.clicks.v2). */
function clickMessages(count: number, linkIds: string[], accountId: string, partitions: number): OutgoingRecord[] {
  const events = Array.from({ length: count }, (_, i) => {
    const linkId = linkIds[i % linkIds.length]!;
    const event = createEvent<ClickRecorded>(
      'ClickRecorded',
      1,
      {
        linkId,
        accountId,
        slug: `s${i % linkIds.length}`.padEnd(3, '0'),
        clickedAt: Date.now(),
        visitorHash: randomBytes(32).toString('hex'),
        referrer: REFERRERS[i % REFERRERS.length]!,
        country: COUNTRIES[i % COUNTRIES.length]!,
        userAgent: UAS[i % UAS.length]!,
      },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    );
    return event;
  });
  return clickRecords(eventLinesOf(events), partitions);
}

const count = (stack: BenchStack, query: string) => scalar(stack.clickhouse, query);

/**
 * Clicks/s from events produced to rows in `clicks` and in every view, with the
 * real projector process; then freshness: a real redirect's click until the
 * analytics endpoint shows it, while other clicks stream in.
 */
export async function benchIngestion(
  stack: BenchStack,
  options: { clicks: number; freshnessSamples: number; backgroundPerSecond: number },
): Promise<IngestionResult> {
  const projector = await stack.start('projector');
  const admin = stack.kafka.admin();
  await admin.connect();
  // Timing starts once the projector holds its partitions, not while it joins.
  for (let i = 0; i < 300; i++) {
    if (await admin.groupIsActive(stack.names.groups.clickProjector)) break;
    await sleep(100);
  }
  const partitions = (await admin.partitionOffsets(stack.names.topics.clicks)).length;
  await admin.disconnect();

  const linkIds = Array.from({ length: 100 }, () => randomUUID());
  // Produced as the redirectors would: batches of up to 1000 clicks, grouped into records.
  const batchSize = 1000;
  const batches = Array.from({ length: Math.ceil(options.clicks / batchSize) }, (_, b) =>
    clickMessages(Math.min(batchSize, options.clicks - b * batchSize), linkIds, stack.accountId, partitions),
  );
  const producer = stack.kafka.producer();
  await producer.connect();
  const started = performance.now();
  let nextBatch = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const batch = batches[nextBatch++];
        if (!batch) return;
        await producer.append(stack.names.topics.clicks, batch);
      }
    }),
  );
  const produced = performance.now();
  for (;;) {
    const [rows, daily, breakdown] = await Promise.all([
      count(stack, 'SELECT count() AS n FROM clicks'),
      count(stack, 'SELECT sum(clicks) AS n FROM link_daily'),
      count(stack, "SELECT sum(clicks) AS n FROM link_daily_breakdown WHERE dimension = 'country'"),
    ]);
    if (rows >= options.clicks && daily >= options.clicks && breakdown >= options.clicks) break;
    if (performance.now() - started > 600_000) throw new Error(`ingestion stalled at ${rows} rows`);
    await sleep(20);
  }
  const visible = performance.now();

  // Freshness, through the real redirector and analytics API, under a steady background stream.
  const writeApi = await stack.start('write-api');
  const [probe] = [...(await createLinks(writeApi.url, stack.key, 1, 'fresh')).keys()];
  const redirector = await stack.start('redirector');
  const analytics = await stack.start('analytics');
  let streaming = true;
  const background = (async () => {
    const perTick = Math.max(1, Math.round(options.backgroundPerSecond / 10));
    while (streaming) {
      const tick = performance.now();
      await producer.append(stack.names.topics.clicks, clickMessages(perTick, linkIds, stack.accountId, partitions));
      await sleep(Math.max(0, 100 - (performance.now() - tick)));
    }
  })();
  const samples: number[] = [];
  const readTotal = async () => {
    const res = await fetch(`${analytics.url}/api/v1/links/${probe}/analytics`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    return ((await res.json()) as { totalClicks: number }).totalClicks;
  };
  for (let i = 1; i <= options.freshnessSamples; i++) {
    const clicked = performance.now();
    const res = await fetch(`${redirector.url}/${probe}`, { redirect: 'manual', headers: { 'user-agent': CHROME_UA } });
    if (res.status !== 302) throw new Error(`probe redirect answered ${res.status}`);
    while ((await readTotal()) < i) {
      if (performance.now() - clicked > 30_000) throw new Error('probe click never became visible');
      await sleep(50); // a dashboard refreshing fast; faster polling would itself load the engine
    }
    samples.push(performance.now() - clicked);
    await sleep(50);
  }
  streaming = false;
  await background;
  await producer.disconnect();
  await Promise.all([analytics.stop(), redirector.stop(), writeApi.stop(), projector.stop()]);

  const fresh = percentiles(samples);
  const seconds = (visible - started) / 1000;
  return {
    clicks: options.clicks,
    producedPerSecond: round(options.clicks / ((produced - started) / 1000)),
    clicksPerSecond: round(options.clicks / seconds),
    seconds: round(seconds),
    freshness: {
      p50Ms: fresh.p50,
      p99Ms: fresh.p99,
      maxMs: fresh.max,
      samples: fresh.n,
      backgroundClicksPerSecond: options.backgroundPerSecond,
    },
  };
}

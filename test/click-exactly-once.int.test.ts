import type { Producer } from 'kafkajs';
import { createHash, randomUUID } from 'node:crypto';
import { createEvent, encodeEvent, type ClickRecorded } from '@shortlink/events';
import {
  clickRows,
  deduplicationToken,
  insertClickBatch,
  postgresBatchLedger,
  withoutCountedClicks,
  type ClickRow,
  type PartitionBatch,
} from '@shortlink/service-projector';
import { eventually, infraEnv } from '@shortlink/testing';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

const ACCOUNT = randomUUID();
const LINKS = Array.from({ length: 8 }, () => randomUUID());
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
];

/** A click the redirector could have sent: deterministic but varied. */
function click(n: number): ClickRecorded {
  return createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: LINKS[n % LINKS.length]!,
      accountId: ACCOUNT,
      slug: `link-${n % LINKS.length}`,
      clickedAt: Date.UTC(2026, 10, 1 + (n % 20), 12, 0, 0, n % 1000),
      visitorHash: createHash('sha256')
        .update(`visitor-${n % 300}`)
        .digest('hex'),
      referrer: n % 3 === 0 ? 'Direct' : `https://ref${n % 7}.example`,
      country: ['US', 'DE', 'FR', 'XX'][n % 4]!,
      userAgent: UAS[n % UAS.length]!,
    },
    { eventId: randomUUID(), occurredAt: new Date().toISOString() },
  );
}

let infra: TestInfra;
let producer: Producer;

beforeAll(() => buildOnce());

// Each test gets its own topics and databases, and sets up the state it starts from.
beforeEach(async () => {
  infra = await openTestInfra();
  producer = infra.kafka.producer();
  await producer.connect();
});

afterEach(async () => {
  await producer?.disconnect();
  await infra?.close();
});

async function send(from: number, count: number): Promise<ClickRecorded[]> {
  return resend(Array.from({ length: count }, (_, i) => click(from + i)));
}

/**
 * Appends clicks 0..count-1, the first of each link twice in a row: kafkajs
 * sends a whole produce request again when part of it failed (a topic only
 * just created, on a loaded machine), so a partition's first batch can hold
 * a click twice. A projector inserts it once; so must these tests' stand-ins
 * for a projector that died, or the counts come out above the clicks sent.
 */
async function sendRepeatingFirst(count: number): Promise<void> {
  await resend(await send(0, LINKS.length));
  await send(LINKS.length, count - LINKS.length);
}

/** Appends these events (again): what a redirector does when it cannot know whether Kafka took a batch. */
async function resend(events: ClickRecorded[]): Promise<ClickRecorded[]> {
  await producer.send({
    topic: infra.names.topics.clicks,
    acks: -1,
    messages: events.map((e) => ({ key: e.data.linkId, value: encodeEvent(e) })),
  });
  return events;
}

async function one<T>(query: string): Promise<T> {
  const rows = await (await infra.clickhouse.query({ query, format: 'JSONEachRow' })).json<T>();
  return rows[0]!;
}

/** Every table and view against what was sent. */
async function totals() {
  return {
    raw: (await one<{ n: number }>('SELECT count() AS n FROM clicks')).n,
    distinctEvents: (await one<{ n: number }>('SELECT uniqExact(event_id) AS n FROM clicks')).n,
    daily: (await one<{ n: number }>('SELECT toUInt64(sum(clicks)) AS n FROM link_daily')).n,
    visitors: (await one<{ n: number }>('SELECT toUInt64(uniqExactMerge(visitors)) AS n FROM link_daily')).n,
    lastSeen: (await one<{ n: number }>('SELECT toUInt64(uniqExact(visitor)) AS n FROM link_visitors')).n,
    // Visitors per link, summed over links.
    lifetime: (
      await one<{ n: number }>(
        'SELECT toUInt64(sum(n)) AS n FROM (SELECT uniqExactMerge(visitors) AS n FROM link_uniques GROUP BY link_id)',
      )
    ).n,
    breakdown: await (
      await infra.clickhouse.query({
        query:
          'SELECT dimension, toUInt64(sum(clicks)) AS n FROM link_daily_breakdown GROUP BY dimension ORDER BY dimension',
        format: 'JSONEachRow',
      })
    ).json<{ dimension: string; n: number }>(),
  };
}

function expected(count: number) {
  return {
    raw: count,
    distinctEvents: count,
    daily: count,
    visitors: Math.min(count, 300),
    lastSeen: Math.min(count, 300),
    lifetime: new Set(Array.from({ length: count }, (_, n) => `${n % LINKS.length}/${n % 300}`)).size,
    breakdown: ['browser', 'country', 'device', 'os', 'referrer'].map((dimension) => ({ dimension, n: count })),
  };
}

function projectorProcess(): Promise<RunningProcess> {
  const env = infraEnv(process.env);
  return startProcess('services/projector/dist/main.js', {
    DATABASE_URL: infra.db.url,
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    CLICKHOUSE_URL: env.CLICKHOUSE_URL,
    CLICKHOUSE_USER: env.CLICKHOUSE_USER,
    CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD,
    CLICKHOUSE_DATABASE: infra.clickhouseDatabase,
    CLICK_BATCH_SIZE: '40',
    // A killed consumer's partitions move on after this; the broker's minimum keeps the test short.
    KAFKA_SESSION_TIMEOUT_MS: '6000',
  });
}

/**
 * Runs a projector until ClickHouse holds `count` rows, lets it go on for
 * `settleMs` (so that whatever more the topic could add would have arrived),
 * and stops it.
 */
async function projectUntil(count: number, settleMs = 0): Promise<void> {
  const projector = await projectorProcess();
  try {
    await eventually(async () => ((await totals()).raw >= count ? true : undefined), 60_000, `${count} clicks`);
    await new Promise((r) => setTimeout(r, settleMs));
  } finally {
    await projector.stop();
  }
}

/**
 * The fact rows of the first `count` records of `partitions` partitions (the first to arrive), read from
 * the topic as the projector reads them.
 */
async function firstRowsOf(partitions: number, count: number): Promise<{ partition: number; rows: ClickRow[] }[]> {
  const consumer = infra.kafka.consumer({ groupId: `peek-${randomUUID()}` });
  const found = new Map<number, ClickRow[]>();
  await consumer.connect();
  await consumer.subscribe({ topic: infra.names.topics.clicks, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      if (found.size >= partitions || found.has(batch.partition)) return;
      found.set(
        batch.partition,
        batch.messages
          .slice(0, count)
          .flatMap((m) => clickRows(m, batch.partition).flatMap((outcome) => (outcome.ok ? [outcome.row] : []))),
      );
    },
  });
  await eventually(async () => (found.size >= partitions ? true : undefined));
  await consumer.disconnect();
  return [...found].slice(0, partitions).map(([partition, rows]) => ({ partition, rows }));
}

async function firstRows(count: number): Promise<{ partition: number; rows: ClickRow[] }> {
  return (await firstRowsOf(1, count))[0]!;
}

/** What a projector of an earlier version sent for a batch: its clicks not counted, alone, under its range's token. */
async function insertAlone(rows: ClickRow[], batch: PartitionBatch): Promise<number> {
  const uncounted = await withoutCountedClicks(infra.clickhouse, rows, [batch]);
  await insertClickBatch(infra.clickhouse, uncounted, deduplicationToken(infra.names.topics.clicks, [batch]));
  return uncounted.length;
}

const VIEWS = ['link_daily_mv', 'link_daily_breakdown_mv', 'link_visitors_mv', 'link_uniques_mv'];

/** Runs `work` with the materialized views detached: an insert dies after `clicks` and before its aggregates. */
async function withoutViews(work: () => Promise<void>): Promise<void> {
  for (const view of VIEWS) await infra.clickhouse.command({ query: `DETACH TABLE ${view}` });
  try {
    await work();
  } finally {
    for (const view of VIEWS) await infra.clickhouse.command({ query: `ATTACH TABLE ${view}` });
  }
}

/** The first `count` records of a partition, claimed in the ledger as the projector claims a batch. */
async function claimedBatch(count: number) {
  const { partition, rows } = await firstRows(count);
  const range = { first: 0n, last: BigInt(rows.at(-1)!.source_offset) };
  const ledger = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
  await ledger.claim(partition, range);
  return { partition, rows, range, ledger };
}

describe('click projection, exactly once', () => {
  it('re-forms a batch an earlier version inserted but did not settle, and ClickHouse drops it', async () => {
    // What a projector of an earlier version (one insert a batch) that died after its insert and before
    // its commit left behind: a pending batch bound to no insert.
    await sendRepeatingFirst(100);
    const first = await firstRows(10);
    const rows = first.rows;
    const last = BigInt(rows.at(-1)!.source_offset);
    const ledger = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    expect(await ledger.claim(first.partition, { first: 0n, last })).toEqual({
      kind: 'insert',
      range: { first: 0n, last },
      alone: false,
    });
    const inserted = await insertAlone(rows, { partition: first.partition, range: { first: 0n, last } });
    expect(inserted).toBeLessThan(rows.length);
    expect((await totals()).raw).toBe(inserted);

    await projectUntil(100, 1000);
    expect(await totals()).toEqual(expected(100));
  });

  it('fills the aggregates of a batch whose clicks went in and whose aggregates did not (killed between the two)', async () => {
    // A ClickHouse insert fills `clicks`, then each materialized view: a death in between leaves the
    // facts without their aggregates. Made here by detaching the views for the batch's insert.
    await sendRepeatingFirst(100);
    const { partition, rows, range } = await claimedBatch(10);
    let inserted = 0;
    await withoutViews(async () => {
      inserted = await insertAlone(rows, { partition, range });
    });
    expect(inserted).toBeLessThan(rows.length);
    expect((await totals()).raw).toBe(inserted);
    expect((await totals()).daily).toBe(0);

    await projectUntil(100, 1000);
    expect(await totals()).toEqual(expected(100));
  });

  it("sends again, rows and token, an insert of several partitions' batches whose owner died before settling them", async () => {
    // What a projector killed in a shared insert left: three partitions' batches bound to one insert,
    // which went into `clicks` and not into the aggregates. The next owner of each partition finds the
    // insert in the ledger, though it holds only its own partition's records.
    await sendRepeatingFirst(100);
    const heads = await firstRowsOf(3, 6);
    const ledger = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    const batches = heads.map(({ partition, rows }) => ({
      partition,
      range: { first: 0n, last: BigInt(rows.at(-1)!.source_offset) },
    }));
    for (const { partition, range } of batches) await ledger.claim(partition, range);
    const rows = await withoutCountedClicks(
      infra.clickhouse,
      heads.flatMap((h) => h.rows),
      batches,
    );
    const token = deduplicationToken(infra.names.topics.clicks, batches);
    expect((await ledger.bind(token, batches, () => rows)).sort()).toEqual(batches.map((b) => b.partition).sort());
    await withoutViews(() => insertClickBatch(infra.clickhouse, rows, token));
    expect((await totals()).raw).toBe(rows.length);
    expect((await totals()).daily).toBe(0);

    await projectUntil(100, 1000);
    expect(await totals()).toEqual(expected(100));
    for (const { partition } of batches) expect(await ledger.get(partition)).toMatchObject({ state: 'inserted' });
    expect((await infra.pool.query('SELECT 1 FROM click_insert_groups')).rowCount).toBe(0);
  });

  it('stops, and says so, at a batch bound to an insert whose kept rows were deleted by hand; the other partitions go on', async () => {
    // What half a reset leaves (docs/clickhouse-operators.md: a reset is a rebuild, both tables' rows deleted):
    // the ledger has a batch bound to an insert, and that insert's rows are gone. No claim can mend it:
    // re-formed, the batch could count clicks the lost insert had counted; skipped, it could lose them.
    await sendRepeatingFirst(100);
    const { partition, rows, range, ledger } = await claimedBatch(6);
    const token = deduplicationToken(infra.names.topics.clicks, [{ partition, range }]);
    expect(await ledger.bind(token, [{ partition, range }], () => rows)).toEqual([partition]);
    await infra.pool.query('DELETE FROM click_insert_groups');

    // Every click of a link is in its link's partition: the stuck partition's links are those of its first batch.
    const stuck = new Set(rows.map((r) => r.link_id));
    const sentTo = (link: number) => Math.ceil((100 - link) / LINKS.length);
    const elsewhere = LINKS.flatMap((id, link) => (stuck.has(id) ? [] : [sentTo(link)])).reduce((a, b) => a + b, 0);
    expect(elsewhere).toBeGreaterThan(0);
    const counted = async (links: string[]) =>
      (
        await one<{ n: number }>(
          `SELECT toUInt64(uniqExact(event_id)) AS n FROM clicks WHERE toString(link_id) IN (${links.map((l) => `'${l}'`).join(',')})`,
        )
      ).n;

    const projector = await projectorProcess();
    try {
      await eventually(
        async () => ((await counted(LINKS.filter((l) => !stuck.has(l)))) >= elsewhere ? true : undefined),
        60_000,
        `${elsewhere} clicks of the other partitions`,
      );
      await eventually(
        async () => (projector.output().includes(`the rows of click insert ${token} are gone`) ? true : undefined),
        30_000,
        'the projector saying why the partition stopped',
      );
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await projector.stop();
    }
    expect(await counted(LINKS.filter((l) => !stuck.has(l)))).toBe(elsewhere);
    expect(await counted([...stuck])).toBe(0);
    expect(await ledger.get(partition)).toMatchObject({
      state: 'pending',
      token,
      first: range.first,
      last: range.last,
    });
  });

  it('skips a batch the ledger has as inserted though its offsets were never committed', async () => {
    // What a projector killed between marking its batch inserted and committing to Kafka leaves.
    await sendRepeatingFirst(100);
    const { partition, rows, range, ledger } = await claimedBatch(15);
    const token = deduplicationToken(infra.names.topics.clicks, [{ partition, range }]);
    const uncounted = await withoutCountedClicks(infra.clickhouse, rows, [{ partition, range }]);
    expect(await ledger.bind(token, [{ partition, range }], () => uncounted)).toEqual([partition]);
    await insertClickBatch(infra.clickhouse, uncounted, token);
    expect(uncounted.length).toBeLessThan(rows.length);
    expect(await ledger.settle(partition, range, token)).toBe(true);

    await projectUntil(100, 1000);
    expect(await totals()).toEqual(expected(100));
  });

  it('counts once a click the topic holds twice (a redirector that sent a batch again)', async () => {
    const events = await send(0, 120);
    await resend(events.slice(30, 70));
    await send(120, 30);
    await resend(events.slice(0, 5));
    // And 3 s more: every record of the topic taken in, duplicates included, so nothing more can arrive.
    await projectUntil(150, 3000);
    expect(await totals()).toEqual(expected(150));
  });

  it('counts once a click sent again after its first copy was inserted (a later batch, another projector run)', async () => {
    const events = await send(0, 100);
    await projectUntil(100);
    // Sent again long after: the copies reach ClickHouse's lookup, not the batch's own.
    await resend(events.slice(10, 60));
    await send(100, 20);
    await resend(events.slice(95, 100));
    await projectUntil(120, 3000);
    expect(await totals()).toEqual(expected(120));
  });

  it('gives two owners the same first batch of a partition that has no ledger row yet', async () => {
    const ledger = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    const other = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    // No row means no row lock: without care both first claims would win, the second overwriting the first's range.
    const partitions = Array.from({ length: 40 }, (_, i) => 100 + i);
    const pairs = await Promise.all(
      partitions.map((p) =>
        Promise.all([ledger.claim(p, { first: 0n, last: 99n }), other.claim(p, { first: 0n, last: 149n })]),
      ),
    );
    for (const [a, b] of pairs) {
      // The same range; the one that found the other's claim re-forms it and is told to send it alone.
      expect(a.kind === 'insert' && b.kind === 'insert').toBe(true);
      if (a.kind === 'insert' && b.kind === 'insert') {
        expect(a.range).toEqual(b.range);
        expect([a.alone, b.alone].sort()).toEqual([false, true]);
      }
    }
  });

  it('lets only one of two owners of a partition claim each batch, whatever they propose', async () => {
    const ledger = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    const other = postgresBatchLedger(infra.pool, infra.names.groups.clickProjector, infra.names.topics.clicks);
    // Both propose at once from the same committed offset, with different fetches in hand.
    const [a, b] = await Promise.all([
      ledger.claim(3, { first: 0n, last: 99n }),
      other.claim(3, { first: 0n, last: 149n }),
    ]);
    // The second re-forms the first's batch: the same range (one of them is told to send it alone).
    expect(a.kind === 'insert' && b.kind === 'insert' && a.range).toEqual(b.kind === 'insert' && b.range);
    const claimed = a.kind === 'insert' ? a.range : null;
    expect(claimed).not.toBeNull();
    // Only one binds it to an insert; the other is told to send that insert again.
    const batch = { partition: 3, range: claimed! };
    const [bound, alsoBound] = await Promise.all([
      ledger.bind('first', [batch], () => []),
      other.bind('second', [batch], () => []),
    ]);
    expect([...bound, ...alsoBound]).toEqual([3]);
    const token = bound.length > 0 ? 'first' : 'second';
    expect(await other.claim(3, { first: 0n, last: 149n })).toEqual({ kind: 'resend', range: claimed, token });
    expect(await ledger.settle(3, claimed!, token)).toBe(true);
    expect(await other.settle(3, claimed!, token)).toBe(false);
    // A replaced member still holding records from the start is told to skip them.
    expect(await other.claim(3, { first: 0n, last: 149n })).toEqual({ kind: 'skip', through: claimed!.last });
    expect(await other.claim(3, { first: claimed!.last + 1n, last: 199n })).toEqual({
      kind: 'insert',
      range: { first: claimed!.last + 1n, last: 199n },
      alone: false,
    });
  });

  it('neither loses nor double counts a click when the projector is killed mid-stream again and again', async () => {
    let sent = 0;
    for (let round = 0; round < 6; round++) {
      const projector = await projectorProcess();
      await send(sent, 600);
      sent += 600;
      // Let it get into the stream, then kill it without warning.
      await new Promise((r) => setTimeout(r, 300 + round * 150));
      await projector.kill();
    }
    const final = await projectorProcess();
    try {
      await eventually(async () => ((await totals()).raw >= sent ? true : undefined), 120_000, `${sent} clicks`);
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      await final.stop();
    }
    expect(await totals()).toEqual(expected(sent));
    const { rows } = await infra.pool.query<{ state: string }>('SELECT state FROM click_projection_ranges');
    expect(rows.every((r) => r.state === 'inserted')).toBe(true);
    // Every insert's rows were let go once its batches were settled.
    expect((await infra.pool.query('SELECT 1 FROM click_insert_groups')).rowCount).toBe(0);
  }, 300_000);
});

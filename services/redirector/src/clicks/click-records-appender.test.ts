import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CLICKS_PER_RECORD, createEvent, decodeClickRecord, type ClickRecorded } from '@shortlink/events';
import { partitionOfKey, type AppendRecordsOptions, type LogAdmin, type LogProducer } from '@shortlink/event-log';
import { eventLinesOf } from './click-event';
import {
  adminPartitionCount,
  CLICK_PARTITION_BYTES,
  CLICK_RECORD_BYTES,
  clickAppends,
  clickRecords as clickRecordsOfLines,
  clickRecordsAppender,
  topicPartitionCount,
} from './click-records-appender';

const clickRecords = (events: ClickRecorded[], partitions: number) =>
  clickRecordsOfLines(eventLinesOf(events), partitions);

const click = (linkId: string, n: number, userAgent = 'Mozilla/5.0'): ClickRecorded =>
  createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId,
      accountId: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c',
      slug: 'launch-26',
      clickedAt: 1_795_000_000_000 + n,
      visitorHash: 'a'.repeat(64),
      referrer: 'Direct',
      country: 'DE',
      userAgent,
    },
    { eventId: randomUUID(), occurredAt: new Date(1_795_000_000_000 + n).toISOString() },
  );

const clicksOf = (value: Buffer | string | null) =>
  decodeClickRecord(value as Buffer).map(({ result }) => (result.ok ? result.event : null));

describe('clicks as records of shortlink.clicks.v2', () => {
  const links = Array.from({ length: 40 }, () => randomUUID());

  it('puts every click in a record of its link’s partition, each once, a link’s clicks in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(links.length - 1), { minLength: 1, maxLength: 700 }),
        fc.integer({ min: 1, max: 16 }),
        (picks, partitions) => {
          const events = picks.map((i, n) => click(links[i]!, n));
          const records = clickRecords(events, partitions);
          const seen: ClickRecorded[] = [];
          for (const record of records) {
            const inRecord = clicksOf(record.value);
            expect(inRecord.length).toBeLessThanOrEqual(CLICKS_PER_RECORD);
            expect(record.headers?.['event-count']).toBe(String(inRecord.length));
            expect(record.headers?.['event-type']).toBe('ClickRecorded');
            const partition = partitionOfKey(record.key!, partitions);
            for (const c of inRecord) expect(partitionOfKey(c!.data.linkId, partitions)).toBe(partition);
            seen.push(...(inRecord as ClickRecorded[]));
          }
          expect(seen).toHaveLength(events.length);
          for (const link of links) {
            const order = (list: ClickRecorded[]) => list.filter((e) => e.data.linkId === link).map((e) => e.eventId);
            expect(order(seen)).toEqual(order(events));
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps a record under CLICK_RECORD_BYTES and a partition’s share of an append under CLICK_PARTITION_BYTES', () => {
    // Long agents of one-, two- and three-byte characters: lines of up to about 3.3 KB, on a few links.
    const agent = fc
      .tuple(fc.constantFrom('a', 'é', '中'), fc.integer({ min: 1, max: 1024 }))
      .map(([c, n]) => c.repeat(n));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2), agent), { minLength: 200, maxLength: 2500, size: 'max' }),
        fc.integer({ min: 1, max: 4 }),
        (picks, partitions) => {
          const events = picks.map(([link, userAgent], n) => click(links[link]!, n, userAgent));
          const appends = clickAppends(eventLinesOf(events), partitions);
          const seen: ClickRecorded[] = [];
          for (const records of appends) {
            expect(records.length).toBeGreaterThan(0);
            const bytes = new Map<number, number>();
            for (const record of records) {
              const size = (record.value as Buffer).length;
              const inRecord = clicksOf(record.value) as ClickRecorded[];
              if (inRecord.length > 1) expect(size).toBeLessThanOrEqual(CLICK_RECORD_BYTES);
              const partition = partitionOfKey(record.key!, partitions);
              bytes.set(partition, (bytes.get(partition) ?? 0) + size);
              seen.push(...inRecord);
            }
            for (const total of bytes.values()) expect(total).toBeLessThanOrEqual(CLICK_PARTITION_BYTES);
          }
          // Each click once, and a link's clicks in order across the appends, made one after the other.
          expect(seen).toHaveLength(events.length);
          for (const link of links.slice(0, 3)) {
            const order = (list: ClickRecorded[]) => list.filter((e) => e.data.linkId === link).map((e) => e.eventId);
            expect(order(seen)).toEqual(order(events));
          }
        },
      ),
      // A failing case is reported as found: shrinking arrays of thousands of long lines would take minutes.
      { numRuns: 15, endOnFailure: true },
    );
  });

  it('needs one append for an ordinary batch', () => {
    // Three links in three partitions: three random ones fall in one partition about one run in 36, and
    // 2,000 clicks in one partition are past CLICK_PARTITION_BYTES (two appends, rightly).
    const spread = [...new Map(links.map((link) => [partitionOfKey(link, 6), link])).values()].slice(0, 3);
    expect(spread).toHaveLength(3);
    const events = Array.from({ length: 2000 }, (_, n) => click(spread[n % 3]!, n));
    expect(clickAppends(eventLinesOf(events), 6)).toHaveLength(1);
  });

  it('makes 2,000 clicks of one partition two appends: past CLICK_PARTITION_BYTES', () => {
    const events = Array.from({ length: 2000 }, (_, n) => click(links[0]!, n));
    expect(clickAppends(eventLinesOf(events), 6)).toHaveLength(2);
  });

  it('groups a batch sent again exactly as the first time', () => {
    const events = Array.from({ length: 500 }, (_, n) => click(links[n % links.length]!, n));
    const plain = (records: ReturnType<typeof clickRecords>) => records.map((r) => [r.key, String(r.value)]);
    expect(plain(clickRecords(events, 12))).toEqual(plain(clickRecords(events, 12)));
  });

  it('needs far fewer records than clicks', () => {
    const events = Array.from({ length: 1000 }, (_, n) => click(randomUUID(), n));
    expect(clickRecords(events, 12).length).toBeLessThanOrEqual(12 * Math.ceil(1000 / 12 / CLICKS_PER_RECORD) + 12);
  });
});

describe('appending a batch of clicks', () => {
  it('makes a batch too large for one append in several, one after the other', async () => {
    // Each append's round trip is a fake timer: the next may start only once it is back.
    jest.useFakeTimers();
    const appends: number[] = [];
    let open = 0;
    const producer = {
      append: async (_topic, records) => {
        expect(open).toBe(0);
        open++;
        await new Promise((r) => setTimeout(r, 5));
        open--;
        appends.push(records.length);
      },
    } as LogProducer;
    const send = clickRecordsAppender({ producer, topic: 'clicks', partitionCount: async () => 1 });
    // About 2.2 MB of one link's clicks: ten records of 200 lines (about 226 KB), three to an append of at most 768 KB.
    try {
      const sent = send(
        eventLinesOf(
          Array.from({ length: 2000 }, (_, n) => click('9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f', n, 'x'.repeat(800))),
        ),
      );
      await jest.advanceTimersByTimeAsync(4 * 5);
      await sent;
      expect(appends).toEqual([3, 3, 3, 1]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('asks for LZ4-compressed batches, in one append', async () => {
    const appends: { topic: string; records: number; options: AppendRecordsOptions | undefined }[] = [];
    const producer = {
      append: async (topic, records, options) => void appends.push({ topic, records: records.length, options }),
    } as LogProducer;
    const send = clickRecordsAppender({ producer, topic: 'clicks', partitionCount: async () => 3 });
    await send(eventLinesOf(Array.from({ length: 10 }, (_, n) => click(randomUUID(), n))));
    expect(appends).toEqual([
      { topic: 'clicks', records: expect.any(Number) as number, options: { compression: 'lz4' } },
    ]);
  });
});

describe('the clicks topic’s partition count', () => {
  it('is asked once, then again after a minute', async () => {
    let now = 0;
    let asked = 0;
    let partitions = 12;
    const count = topicPartitionCount(
      async () => {
        asked++;
        return partitions;
      },
      () => now,
    );
    expect(await count()).toBe(12);
    partitions = 24;
    now = 59_000;
    expect(await count()).toBe(12);
    now = 61_000;
    expect(await count()).toBe(24);
    expect(asked).toBe(2);
  });

  it('is asked of the admin, connected once', async () => {
    let connects = 0;
    const admin = {
      connect: async () => void connects++,
      partitionOffsets: async () => Array.from({ length: 6 }, (_, partition) => ({ partition, low: '0', high: '0' })),
    } as unknown as LogAdmin;
    const ask = adminPartitionCount(admin, 'clicks');
    expect([await ask(), await ask()]).toEqual([6, 6]);
    expect(connects).toBe(1);
  });
});

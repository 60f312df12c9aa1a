import { createMetricsRegistry, type MetricsRegistry } from '@shortlink/metrics';
import { runConsumer, HANDLED_LATER, type MessageHandler, type DeferredRecordHandler } from './consumer';
import type { BatchControl, EventLogClient, LogProducer, LogRecord, OutgoingRecord } from './log-client';
import type { RecordInHand } from './records-in-hand';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const record = (offset: number): LogRecord => ({
  offset: String(offset),
  key: null,
  value: Buffer.from(String(offset)),
  timestamp: '0',
});
/** A pause of the simulated broker or handler: a timer, run as the test lets time pass. */
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The test lets this much (fake) time pass, running every timer due in it. */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/**
 * One partition of `total` records read as either adapter reads it: a batch of
 * `batchSize` from the read position, the next one once the handler returns,
 * from where it advanced (or committed) to.
 */
async function consumeInHand(
  total: number,
  batchSize: number,
  recordsInHand: number,
  handler: MessageHandler | { take: DeferredRecordHandler },
  metrics: MetricsRegistry = createMetricsRegistry({ processMetrics: false }),
) {
  const commits: number[] = [];
  const parked: string[] = [];
  const batchesReturned: number[] = [];
  let stopped = false;
  let reading: Promise<void> = Promise.resolve();
  const kafka = {
    consume: async (_subscription, eachBatch) => {
      reading = (async () => {
        let position = 0;
        while (!stopped && position < total) {
          let advanced = position;
          const control: BatchControl = {
            commit: async (next) => void commits.push(Number(next)),
            advance: (next) => void (advanced = Number(next)),
            heartbeat: async () => undefined,
            owned: () => !stopped,
          };
          const end = Math.min(total, position + batchSize);
          const records = Array.from({ length: end - position }, (_, i) => record(position + i));
          await eachBatch({ topic: 'links', partition: 0, records, highWatermark: String(total) }, control);
          batchesReturned.push(end);
          position = advanced;
          await tick(1);
        }
      })();
      return { stop: async () => void (stopped = true) };
    },
  } as Pick<EventLogClient, 'consume'> as EventLogClient;
  const common = {
    kafka,
    groupId: 'g',
    topics: ['links'],
    logger: quiet,
    deadLetterProducer: {
      append: async (_topic: string, records: readonly OutgoingRecord[]) =>
        void parked.push(...records.map((r) => String(r.value))),
    } as LogProducer,
    deadLetterTopic: 'dlq',
    metrics,
    maxBackoffMs: 1,
    recordsInHand,
  };
  const consumer = await runConsumer(
    typeof handler === 'function' ? { ...common, handler } : { ...common, take: handler.take },
  );
  return { commits, parked, batchesReturned, consumer, reading: () => reading };
}

describe('runConsumer with recordsInHand', () => {
  it('reads on past a slow record and commits only up to it until it is handled', async () => {
    // Given record 2 of 30 held until released, the others quick
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    const { commits, batchesReturned, consumer } = await consumeInHand(30, 10, 100, async (m) => {
      const offset = Number(m.offset);
      if (offset === 2) await held;
      handled.push(offset);
      return { kind: 'ok' };
    });
    // Then every batch was read and every other record handled while record 2 waits
    await eventuallyTrue(() => handled.length === 29);
    expect(batchesReturned).toEqual([10, 20, 30]);
    await pass(400);
    // and nothing was committed past it
    expect(Math.max(0, ...commits)).toBeLessThanOrEqual(2);
    release();
    await eventuallyTrue(() => commits.at(-1) === 30);
    expect(commits).toEqual([...commits].sort((a, b) => a - b));
    await consumer.stop();
  });

  it('never has more than recordsInHand records in hand', async () => {
    let inHand = 0;
    let most = 0;
    let done = 0;
    const { commits, consumer } = await consumeInHand(200, 50, 7, async () => {
      most = Math.max(most, ++inHand);
      await tick(2);
      inHand--;
      done++;
      return { kind: 'ok' };
    });
    await eventuallyTrue(() => done === 200);
    expect(most).toBe(7);
    await eventuallyTrue(() => commits.at(-1) === 200);
    await consumer.stop();
  });

  it('on stop, commits what was handled and leaves what was not for the next owner', async () => {
    const stopping = new AbortController();
    const { commits, consumer, reading } = await consumeInHand(10, 10, 100, async (m) => {
      // Records 0-4 are quick; 5 onwards wait until the worker stops, and give up then.
      if (Number(m.offset) >= 5) {
        await new Promise((_, reject) =>
          stopping.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
        );
      }
      return { kind: 'ok' };
    });
    await pass(50);
    const stopped = consumer.stop();
    stopping.abort();
    await stopped;
    await reading();
    expect(commits.at(-1)).toBe(5);
  });
});

describe('runConsumer with a taker of records in hand', () => {
  it('counts a record taken when the taker settles it, and commits only up to the first it has not handled', async () => {
    // Given a taker that keeps each record's offset, not the record, and drops the odd ones at once
    const kept: { offset: number; inHand: RecordInHand }[] = [];
    const metrics = createMetricsRegistry({ processMetrics: false });
    const { commits, consumer } = await consumeInHand(
      10,
      5,
      100,
      {
        take: (message, _context, inHand) => {
          const offset = Number(message.offset);
          if (offset % 2 === 1) return { kind: 'drop', reason: 'odd' };
          kept.push({ offset, inHand });
          return HANDLED_LATER;
        },
      },
      metrics,
    );
    await eventuallyTrue(() => kept.length === 5);
    await pass(300);
    expect(await outcomes(metrics)).toEqual({ drop: 5 });
    expect(commits).toEqual([]);
    // When it handles all but record 4 (twice, for some: the second call is ignored)
    for (const { offset, inHand } of kept) if (offset !== 4) inHand.handled();
    kept[0]!.inHand.handled();
    // Then the partition is committed up to record 4, and each record counted once
    await eventuallyTrue(() => commits.at(-1) === 4);
    expect(await outcomes(metrics)).toEqual({ drop: 5, ok: 4 });
    kept[2]!.inHand.handled();
    await eventuallyTrue(() => commits.at(-1) === 10);
    await consumer.stop();
  });

  it('holds no more than recordsInHand records taken and not settled, and reads on as they settle', async () => {
    const kept: RecordInHand[] = [];
    let most = 0;
    const { batchesReturned, commits, consumer } = await consumeInHand(30, 10, 12, {
      take: (_message, _context, inHand) => {
        most = Math.max(most, kept.push(inHand));
        return HANDLED_LATER;
      },
    });
    await pass(100);
    expect(kept).toHaveLength(12);
    expect(batchesReturned).toEqual([10]);
    // A few settled at a time: the rest is read as room comes
    await eventuallyTrue(() => {
      kept.splice(0, 5).forEach((r) => r.handled());
      return commits.at(-1) === 30;
    });
    expect(most).toBe(12);
    await consumer.stop();
  });

  it('waits on stop for the records taken to be settled, and leaves the released ones uncommitted', async () => {
    const kept: RecordInHand[] = [];
    const { commits, consumer, reading } = await consumeInHand(10, 10, 100, {
      take: (_message, _context, inHand) => {
        kept.push(inHand);
        return HANDLED_LATER;
      },
    });
    await eventuallyTrue(() => kept.length === 10);
    kept.slice(0, 3).forEach((r) => r.handled());
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await pass(50);
    expect(stopped).toBe(false);
    kept.slice(3).forEach((r) => r.release());
    await stopping;
    await reading();
    expect(commits.at(-1)).toBe(3);
  });

  it('retries a taker that throws, then parks the record', async () => {
    let calls = 0;
    const metrics = createMetricsRegistry({ processMetrics: false });
    const { commits, parked, consumer } = await consumeInHand(
      1,
      1,
      10,
      {
        take: () => {
          calls++;
          throw new Error('a bug');
        },
      },
      metrics,
    );
    await eventuallyTrue(() => commits.at(-1) === 1);
    expect(calls).toBe(3);
    expect(parked).toEqual(['0']);
    expect(await outcomes(metrics)).toEqual({ dead_letter: 1 });
    await consumer.stop();
  });
});

async function outcomes(metrics: MetricsRegistry): Promise<Record<string, number>> {
  const { values } = await metrics.getSingleMetric('shortlink_consumer_messages_total')!.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

/** Lets fake time pass, 5 ms at a time, until `check` holds (or 5 s of it have passed). */
async function eventuallyTrue(check: () => boolean, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > timeoutMs) throw new Error('condition not met in time');
    await pass(5);
  }
}

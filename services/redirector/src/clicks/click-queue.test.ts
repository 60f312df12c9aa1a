import type { ClickRecorded } from '@shortlink/events';
import { ClickQueue, type ClickQueueOptions } from './click-queue';

const silent = { info() {}, warn() {}, error() {} };
let ids = 0;
/** A click as captured: its event id is fixed then (click-event-id.ts), before it is queued. */
const captured = (n: number) => ({ eventId: `e${n}-${++ids}`, data: { n } }) as unknown as ClickRecorded;

describe('ClickQueue', () => {
  it('batches clicks and sends them', async () => {
    const sent: ClickRecorded[][] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: async (events) => void sent.push(events),
      capacity: 100,
      maxBatch: 3,
      flushIntervalMs: 10,
      logger: silent,
    });
    for (let i = 0; i < 7; i++) queue.push(captured(i));
    await queue.close(1000);
    expect(sent.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(queue.stats).toMatchObject({ queued: 7, sent: 7, dropped: 0 });
  });

  it('counts the clicks a sender left out of its batch as rejected, not sent, and says why', async () => {
    const errors: object[] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: async (events) => ({ rejected: events.length > 2 ? 1 : 0, rejection: new TypeError('no address') }),
      capacity: 100,
      maxBatch: 3,
      flushIntervalMs: 1,
      logger: { ...silent, error: (obj) => void errors.push(obj) },
    });
    for (let i = 0; i < 5; i++) queue.push(captured(i));
    await queue.close(1000);
    expect(queue.stats).toMatchObject({ queued: 5, sent: 4, rejected: 1, failedSends: 0 });
    expect(queue.depth).toBe(0);
    expect(errors).toEqual([{ err: new TypeError('no address'), rejected: 1, sent: 2 }]);
  });

  it('retries a failed batch with the same events, so a retry is never a second click', async () => {
    const attempts: string[][] = [];
    let fail = 2;
    const queue = new ClickQueue<ClickRecorded>({
      send: async (events) => {
        attempts.push(events.map((e) => e.eventId));
        if (fail-- > 0) throw new Error('broker unavailable');
      },
      capacity: 100,
      maxBatch: 10,
      flushIntervalMs: 1,
      logger: silent,
    });
    queue.push(captured(1));
    queue.push(captured(2));
    await queue.flush();
    expect(attempts).toHaveLength(3);
    expect(attempts[1]).toEqual(attempts[0]);
    expect(attempts[2]).toEqual(attempts[0]);
    expect(queue.stats).toMatchObject({ sent: 2, failedSends: 2 });
  });

  it('sends clicks pushed while a batch is in flight in the next batch, with no timer of their own', async () => {
    jest.useFakeTimers();
    try {
      const sizes: number[] = [];
      const queue = new ClickQueue<ClickRecorded>({
        send: async (events) => {
          sizes.push(events.length);
          await new Promise((r) => setTimeout(r, 20));
        },
        capacity: 100,
        maxBatch: 10,
        flushIntervalMs: 1,
        logger: silent,
      });
      queue.push(captured(1));
      await jest.advanceTimersByTimeAsync(5);
      queue.push(captured(2));
      queue.push(captured(3));
      await jest.advanceTimersByTimeAsync(100);
      expect(sizes).toEqual([1, 2]);
      expect(queue.stats.sent).toBe(3);
      expect(queue.depth).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  describe('under steady traffic, with acknowledgements faster than the flush interval', () => {
    // Fake time: the stream, the acknowledgements and the queue's interval run on the same clock.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
    afterEach(() => jest.useRealTimers());

    /** A click every 2 ms for 400 ms, each batch acknowledged in 1 ms. */
    async function steadyStream(queue: ClickQueue<ClickRecorded>) {
      for (let i = 0; i < 200; i++) {
        queue.push(captured(i));
        await jest.advanceTimersByTimeAsync(2);
      }
    }
    /** Lets fake time pass, 1 ms at a time, until `work` settles; resolves with the milliseconds it took. */
    async function timeTaken(work: Promise<unknown>): Promise<number> {
      let settled = false;
      const done = work.finally(() => (settled = true));
      let ms = 0;
      for (; !settled && ms < 60_000; ms++) await jest.advanceTimersByTimeAsync(1);
      await done;
      return ms;
    }
    const quickAck = (sizes: number[]) => async (events: ClickRecorded[]) => {
      sizes.push(events.length);
      await new Promise((r) => setTimeout(r, 1));
    };
    const queueOf = (options: Pick<ClickQueueOptions<ClickRecorded>, 'send' | 'maxBatch' | 'flushIntervalMs'>) =>
      new ClickQueue<ClickRecorded>({ capacity: 1000, logger: silent, ...options });

    it('sends at most one batch per flush interval, not one per round trip', async () => {
      const sizes: number[] = [];
      const queue = queueOf({ send: quickAck(sizes), maxBatch: 1000, flushIntervalMs: 50 });
      await steadyStream(queue);
      await timeTaken(queue.close(1000));
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(200);
      // 200 clicks over at least 400 ms at one send per 50 ms: a dozen sends at most, not 200.
      expect(sizes.length).toBeLessThanOrEqual(12);
    });

    it('sends a full batch at once, without waiting out the interval', async () => {
      const sizes: number[] = [];
      const sentAt: number[] = [];
      const queue = queueOf({
        send: async (events) => {
          sentAt.push(Date.now());
          await quickAck(sizes)(events);
        },
        maxBatch: 10,
        flushIntervalMs: 10_000,
      });
      const start = Date.now();
      for (let i = 0; i < 10; i++) queue.push(captured(i));
      await new Promise((r) => setImmediate(r));
      // In flight with the first batch: the drain then waits out the interval for more.
      queue.push(captured(10));
      await jest.advanceTimersByTimeAsync(5);
      for (let i = 11; i < 20; i++) queue.push(captured(i));
      await jest.advanceTimersByTimeAsync(50);
      expect(sizes).toEqual([10, 10]);
      expect(sentAt[1]! - start).toBeLessThan(1000);
      await timeTaken(queue.close(1000));
    });

    it('does not make an explicit flush wait out the interval', async () => {
      const sizes: number[] = [];
      const queue = queueOf({ send: quickAck(sizes), maxBatch: 1000, flushIntervalMs: 10_000 });
      queue.push(captured(1));
      const first = queue.flush();
      queue.push(captured(2));
      expect(await timeTaken(Promise.all([queue.flush(), first]))).toBeLessThan(1000);
      expect(sizes).toEqual([1, 1]);
      await timeTaken(queue.close(1000));
    });
  });

  it('drops and counts clicks beyond its capacity instead of growing or blocking', () => {
    const queue = new ClickQueue<ClickRecorded>({
      send: () => new Promise(() => undefined),
      capacity: 5,
      maxBatch: 100,
      flushIntervalMs: 1000,
      logger: silent,
    });
    for (let i = 0; i < 8; i++) queue.push(captured(i));
    expect(queue.depth).toBe(5);
    expect(queue.stats.dropped).toBe(3);
  });

  it('says in the log that clicks were dropped, once at first and then at most every 5 s with the count since', async () => {
    const errors: { dropped: number; reason: string }[] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: async () => undefined,
      capacity: 100,
      maxBatch: 100,
      flushIntervalMs: 1000,
      logger: { info() {}, warn() {}, error: (obj) => void errors.push(obj as { dropped: number; reason: string }) },
    });
    await queue.close(1000);
    jest.useFakeTimers({ now: 0 });
    try {
      for (let i = 0; i < 4; i++) queue.push(captured(i));
      expect(errors).toEqual([{ dropped: 1, reason: 'stopped', capacity: 100 }]);
      jest.setSystemTime(5000);
      queue.push(captured(5));
      expect(errors[1]).toMatchObject({ dropped: 4, reason: 'stopped' });
      expect(queue.stats.dropped).toBe(5);
    } finally {
      jest.useRealTimers();
    }
  });

  it('says the drops of a burst at the end of its 5 s, even when no click is dropped after them', async () => {
    // Given a queue that has dropped a click and said so
    const errors: { dropped: number }[] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: async () => undefined,
      capacity: 100,
      maxBatch: 100,
      flushIntervalMs: 1000,
      logger: { info() {}, warn() {}, error: (obj) => void errors.push(obj as { dropped: number }) },
    });
    await queue.close(1000);
    jest.useFakeTimers({ now: 0 });
    try {
      queue.push(captured(0));
      // When 999 more are dropped within the next second, and then none
      jest.setSystemTime(1000);
      for (let i = 1; i < 1000; i++) queue.push(captured(i));
      expect(errors).toHaveLength(1);
      // Then the 999 are said once the 5 s are over
      jest.advanceTimersByTime(4000);
      expect(errors.map((e) => e.dropped)).toEqual([1, 999]);
      jest.advanceTimersByTime(60_000);
      expect(errors).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('says the drops not yet said as it closes, before its last word', async () => {
    const said: string[] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: () => new Promise(() => undefined),
      capacity: 2,
      maxBatch: 100,
      flushIntervalMs: 1000,
      logger: {
        info: (_obj, msg) => void said.push(msg),
        warn() {},
        error: (obj, msg) => void said.push(`${msg} ${(obj as { dropped?: number }).dropped ?? ''}`.trim()),
      },
    });
    // Two taken, one dropped and said at once, three more dropped within its 5 s.
    for (let i = 0; i < 6; i++) queue.push(captured(i));
    await queue.close(50);
    expect(said).toEqual([
      'clicks dropped 1',
      'clicks could not be sent before shutdown',
      'clicks dropped 3',
      'click queue closed',
    ]);
  });

  it('says as it closes how many clicks it took, sent and dropped, and how many are left unsent', async () => {
    const infos: object[] = [];
    const queue = new ClickQueue<ClickRecorded>({
      send: async () => undefined,
      capacity: 100,
      maxBatch: 10,
      flushIntervalMs: 1000,
      logger: { info: (obj) => void infos.push(obj), warn() {}, error() {} },
    });
    for (let i = 0; i < 3; i++) queue.push(captured(i));
    await queue.close(1000);
    expect(infos).toEqual([{ queued: 3, sent: 3, dropped: 0, rejected: 0, failedSends: 0, unsent: 0 }]);
  });
});

import { groupCommit } from './group-commit';

const FAIL_ALL = (maxBatch: number) => ({ maxBatch, onFailure: 'fail-all' as const });

/** Fake time passes, 1 ms at a time, until `work` settles: a batch's round trip is a timer. */
async function inFakeTime<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  const done = work.finally(() => (settled = true));
  for (let ms = 0; !settled && ms < 10_000; ms++) await jest.advanceTimersByTimeAsync(1);
  return done;
}

describe('groupCommit', () => {
  afterEach(() => jest.useRealTimers());

  it('runs the first call alone and the calls that arrive meanwhile together, answering each in order', async () => {
    jest.useFakeTimers();
    const batches: number[][] = [];
    const double = groupCommit(async (items: number[]) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 10));
      return items.map((n) => n * 2);
    }, FAIL_ALL(100));
    const results = await inFakeTime(Promise.all([1, 2, 3, 4].map((n) => double(n))));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('given room for two batches at once, starts the second before the first is back, and never a third', async () => {
    const batches: number[][] = [];
    let running = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const run = groupCommit(
      async (items: number[]) => {
        batches.push(items);
        most = Math.max(most, ++running);
        await new Promise<void>((r) => release.push(r));
        running--;
        return items;
      },
      { ...FAIL_ALL(100), maxInFlight: 2 },
    );
    const results = [1, 2, 3, 4, 5].map((n) => run(n));
    expect(batches).toEqual([[1], [2]]);
    release.shift()!();
    await results[0];
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2], [3, 4, 5]]);
    while (release.length > 0) release.shift()!();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('caps a batch', async () => {
    const sizes: number[] = [];
    const run = groupCommit(async (items: number[]) => {
      sizes.push(items.length);
      return items;
    }, FAIL_ALL(2));
    await Promise.all([1, 2, 3, 4, 5].map((n) => run(n)));
    expect(sizes).toEqual([1, 2, 2]);
  });

  it('fails every call of a failed batch, and carries on with the next', async () => {
    let calls = 0;
    const run = groupCommit(async (items: string[]) => {
      if (calls++ === 1) throw new Error('database away');
      return items;
    }, FAIL_ALL(10));
    const first = run('a');
    const failed = [run('b'), run('c')];
    await expect(first).resolves.toBe('a');
    for (const f of failed) await expect(f).rejects.toThrow('database away');
    await expect(run('d')).resolves.toBe('d');
  });

  // The redirector's catch-up: callers with no item of their own, sharing one round trip.
  it('never hands a caller the call already under way, and shares the next one', async () => {
    const calls: (() => void)[] = [];
    const fn = groupCommit(
      (callers: unknown[]) =>
        new Promise<number[]>((resolve) => calls.push(() => resolve(callers.map(() => calls.length)))),
      FAIL_ALL(Number.POSITIVE_INFINITY),
    );
    const first = fn(undefined);
    const second = fn(undefined);
    const third = fn(undefined);
    expect(calls).toHaveLength(1);
    calls[0]!();
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(2);
    calls[1]!();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
  });

  it('starts at once when idle, and after a failure', async () => {
    let fail = true;
    const fn = groupCommit(async (callers: unknown[]) => {
      if (fail) throw new Error('down');
      return callers.map(() => 'ok');
    }, FAIL_ALL(Number.POSITIVE_INFINITY));
    await expect(fn(undefined)).rejects.toThrow('down');
    fail = false;
    expect(await fn(undefined)).toBe('ok');
  });

  it('retries each item of a failed batch alone: a poisoned item fails only itself', async () => {
    jest.useFakeTimers();
    const batches: string[][] = [];
    // Like one INSERT of many rows: a single bad row fails the statement, and nothing is written.
    const insert = groupCommit(
      async (items: string[]) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        if (items.some((s) => s.includes('\u0000'))) throw new Error('invalid byte sequence');
        return items.map((s) => s.toUpperCase());
      },
      { maxBatch: 100, onFailure: 'retry-alone' },
    );
    const first = insert('a');
    const shared = ['b', 'c\u0000', 'd'].map((s) =>
      insert(s).then(
        (r) => r,
        (e: Error) => e.message,
      ),
    );
    expect(await inFakeTime(first)).toBe('A');
    expect(await inFakeTime(Promise.all(shared))).toEqual(['B', 'invalid byte sequence', 'D']);
    expect(batches).toEqual([['a'], ['b', 'c\u0000', 'd'], ['b'], ['c\u0000'], ['d']]);
  });

  it('sends the items of one caller together even when idle, each settling on its own', async () => {
    const batches: string[][] = [];
    const insert = groupCommit(
      async (items: string[]) => {
        batches.push(items);
        if (items.some((s) => s.includes('\u0000'))) throw new Error('invalid byte sequence');
        return items.map((s) => s.toUpperCase());
      },
      { maxBatch: 3, onFailure: 'retry-alone' },
    );
    const settled = await Promise.allSettled(insert.all(['a', 'b\u0000', 'c', 'd']));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'A',
      'invalid byte sequence',
      'C',
      'D',
    ]);
    // One batch up to maxBatch, then the rest; the poisoned batch retried item by item.
    expect(batches).toEqual([['a', 'b\u0000', 'c'], ['a'], ['b\u0000'], ['c'], ['d']]);
    expect(insert.all([])).toEqual([]);
  });

  it("caps a batch by the items' sizes when given them, taking a larger item alone rather than refusing it", async () => {
    const batches: number[][] = [];
    const run = groupCommit(
      async (items: number[]) => {
        batches.push(items);
        return items;
      },
      { maxBatch: 100, sizeOf: (n: number) => n, onFailure: 'fail-all' },
    );
    await Promise.all([10, 60, 40, 150, 1].map((n) => run(n)));
    // The first alone (idle), then in order: 60 + 40 fit, 150 alone, then 1.
    expect(batches).toEqual([[10], [60, 40], [150], [1]]);
  });

  it('given gatherTurn, starts the items of one turn of the event loop together even when idle', async () => {
    const batches: string[][] = [];
    const run = groupCommit(
      async (items: string[]) => {
        batches.push(items);
        return items;
      },
      { maxBatch: 10, onFailure: 'fail-all', gatherTurn: true },
    );
    await Promise.all([run('a'), run('b')]);
    await run('c');
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });
});

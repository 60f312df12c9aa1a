import fc from 'fast-check';
import { createFetchScheduler, type FetchScheduler, type QueuedFetch } from './fetch-scheduler';

const flush = () => new Promise((r) => setImmediate(r));

/** A scheduler whose fetches end only when the test says so; `started` lists them in the order they began. */
function harness(options: { concurrency: number; perHostConcurrency: number; freshMs?: number; now?: () => number }) {
  const running: { name: string; host: string; finish: () => void }[] = [];
  const started: string[] = [];
  const scheduler: FetchScheduler<{ name: string; host: string }> = createFetchScheduler({
    freshMs: 10_000,
    ...options,
    start: (fetch) => {
      started.push(fetch.item.name);
      running.push({ ...fetch.item, finish: () => scheduler.done(fetch) });
    },
  });
  const add = (host: string, name: string, createdAt: number) => scheduler.schedule(host, createdAt, { name, host });
  const finish = async (name: string) => {
    const i = running.findIndex((r) => r.name === name);
    if (i < 0) throw new Error(`${name} is not running`);
    running.splice(i, 1)[0]!.finish();
    await flush();
  };
  return { scheduler, running, started, add, finish };
}

describe('createFetchScheduler', () => {
  it('never runs more than its caps, in all and per host, and runs every fetch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.nat({ max: 20_000 })), { maxLength: 120 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.infiniteStream(fc.nat()),
        async (fetches, concurrency, perHostConcurrency, picks) => {
          const { running, started, add, finish } = harness({ concurrency, perHostConcurrency, now: () => 20_000 });
          fetches.forEach(([host, createdAt], i) => add(host, `${host}${i}`, createdAt));
          const pick = picks[Symbol.iterator]();
          while (running.length > 0) {
            expect(running.length).toBeLessThanOrEqual(concurrency);
            for (const host of ['a', 'b', 'c', 'd']) {
              expect(running.filter((r) => r.host === host).length).toBeLessThanOrEqual(perHostConcurrency);
            }
            // Never idle while something could run
            const hostsWaiting = new Set(fetches.map(([h], i) => (started.includes(`${h}${i}`) ? null : h)));
            hostsWaiting.delete(null);
            const couldStart = [...hostsWaiting].some(
              (h) => running.filter((r) => r.host === h).length < perHostConcurrency,
            );
            expect(couldStart && running.length < concurrency).toBe(false);
            await finish(running[pick.next().value % running.length]!.name);
          }
          expect(started.sort()).toEqual(fetches.map(([h], i) => `${h}${i}`).sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it('lets a host that never answers hold only its own slots: the other hosts go on', async () => {
    const { running, started, add, finish } = harness({ concurrency: 4, perHostConcurrency: 2 });
    for (let i = 0; i < 50; i++) add('hanging.example', `hang${i}`, 0);
    for (let i = 0; i < 50; i++) add('quick.example', `quick${i}`, 0);
    for (let i = 0; i < 50; i++) await finish(running.find((r) => r.host === 'quick.example')!.name);
    expect(started.filter((s) => s.startsWith('quick'))).toHaveLength(50);
    expect(running.map((r) => r.host)).toEqual(['hanging.example', 'hanging.example']);
  });

  it('serves the backlog oldest first, the hosts taking turns', async () => {
    const { started, running, add, finish } = harness({ concurrency: 1, perHostConcurrency: 1, now: () => 1e9 });
    add('a', 'a1', 1);
    add('a', 'a2', 2);
    add('a', 'a3', 3);
    add('b', 'b1', 4);
    add('b', 'b2', 5);
    while (running.length > 0) await finish(running[0]!.name);
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('runs a fetch for a new link next on its host, ahead of the backlog there, the newest first', async () => {
    let now = 100_000;
    const { started, running, add, finish } = harness({
      concurrency: 4,
      perHostConcurrency: 2,
      freshMs: 10_000,
      now: () => now,
    });
    // A backlog on a busy host, created a minute ago
    for (let i = 0; i < 20; i++) add('busy', `old${i}`, 40_000 + i);
    expect(started).toEqual(['old0', 'old1']);
    // Two new links arrive on that host, and one on an idle host
    add('busy', 'new1', now);
    now += 100;
    add('busy', 'new2', now);
    add('idle', 'idle1', now);
    expect(started).toEqual(['old0', 'old1', 'idle1']);
    await finish('old0');
    await finish('old1');
    expect(started.slice(3)).toEqual(['new2', 'new1']);
    // Once they have aged, new links are backlog too
    now += 20_000;
    add('busy', 'late', now - 15_000);
    while (running.length > 0) await finish(running[0]!.name);
    expect(started.at(-1)).toBe('late');
  });

  it('moves a waiting fetch up when a new link waits for it too', async () => {
    const now = 100_000;
    const { scheduler, started, add, finish } = harness({ concurrency: 1, perHostConcurrency: 1, now: () => now });
    add('h', 'running', 1);
    add('h', 'old1', 2);
    const shared = add('h', 'old2', 3);
    add('h', 'old3', 4);
    scheduler.promote(shared, now);
    await finish('running');
    expect(started).toEqual(['running', 'old2']);
    await finish('old2');
    await finish('old1');
    await finish('old3');
    expect(started).toEqual(['running', 'old2', 'old1', 'old3']);
  });

  it('takes fetches that end as they start without recursing, and frees each slot once', () => {
    // Given a long line behind two fetches under way, and fetches from then on ending as they start
    // (the worker stopping: nothing is fetched any more)
    const started: number[] = [];
    const held: QueuedFetch<number>[] = [];
    let endAtOnce = false;
    const scheduler: FetchScheduler<number> = createFetchScheduler<number>({
      concurrency: 2,
      perHostConcurrency: 1,
      freshMs: 10_000,
      start: (fetch) => {
        started.push(fetch.item);
        if (endAtOnce) scheduler.done(fetch);
        else held.push(fetch);
      },
    });
    for (let i = 0; i < 200_000; i++) scheduler.schedule(`host${i % 2}`, 0, i);
    expect(started).toEqual([0, 1]);
    // When the two end
    endAtOnce = true;
    held.forEach((fetch) => scheduler.done(fetch));
    // Then the whole line ran, one after another
    expect(started).toHaveLength(200_000);
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.queued).toBe(0);
  });

  it('refuses to free a slot twice', () => {
    const fetches: QueuedFetch<string>[] = [];
    const scheduler = createFetchScheduler<string>({
      concurrency: 1,
      perHostConcurrency: 1,
      freshMs: 10_000,
      start: (fetch) => void fetches.push(fetch),
    });
    scheduler.schedule('h', 0, 'a');
    scheduler.schedule('h', 0, 'b');
    scheduler.done(fetches[0]!);
    expect(() => scheduler.done(fetches[0]!)).toThrow('done with a fetch done');
    expect(scheduler.inFlight).toBe(1);
  });
});

import fc from 'fast-check';
import { createFetchScheduler, type FetchScheduler, type QueuedFetch } from './fetch-scheduler';

const flush = () => new Promise((r) => setImmediate(r));

/** A scheduler whose fetches end only when the test says so; `started` lists them in the order they began. */
function harness(options: {
  concurrency: number;
  perHostConcurrency: number;
  freshMs?: number;
  accountShare?: number;
  now?: () => number;
}) {
  const running: { name: string; host: string; account: string; finish: () => void }[] = [];
  const started: string[] = [];
  const scheduler: FetchScheduler<{ name: string; host: string; account: string }> = createFetchScheduler({
    freshMs: 10_000,
    ...options,
    start: (fetch) => {
      started.push(fetch.item.name);
      running.push({ ...fetch.item, finish: () => scheduler.done(fetch) });
    },
  });
  const add = (host: string, name: string, createdAt: number, account = 'acct') =>
    scheduler.schedule(host, createdAt, { name, host, account }, account);
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

  it('runs a new link ahead of a fresh bulk import whose older links are still arriving', async () => {
    // The import was created a moment before the new link, and its partitions are read side by side, so its
    // older links keep arriving (and promoting the fetches they share) after the new one
    const now = 100_000;
    const { scheduler, started, running, add, finish } = harness({
      concurrency: 1,
      perHostConcurrency: 1,
      freshMs: 60_000,
      now: () => now,
    });
    const shared: QueuedFetch<{ name: string; host: string; account: string }>[] = [];
    for (let i = 0; i < 50; i++) shared.push(add('h', `import${i}`, 90_000 + i));
    add('h', 'new', 99_000);
    for (let i = 50; i < 100; i++) add('h', `import${i}`, 90_000 + i);
    shared.forEach((fetch, i) => scheduler.promote(fetch, 90_500 + i));
    await finish(running[0]!.name);
    expect(started.slice(0, 2)).toEqual(['import0', 'new']);
    // The rest of the import follows, the newest first: the promoted ones, then by creation
    while (running.length > 0) await finish(running[0]!.name);
    const expected = [
      ...Array.from({ length: 49 }, (_, i) => `import${49 - i}`),
      ...Array.from({ length: 50 }, (_, i) => `import${99 - i}`),
    ];
    expect(started.slice(2)).toEqual(expected);
  });

  it('keeps its order through many promotions and starts (old tickets and started entries dropped)', async () => {
    let now = 1_000_000;
    const { scheduler, started, running, add, finish } = harness({
      concurrency: 1,
      perHostConcurrency: 1,
      freshMs: 10_000,
      now: () => now,
    });
    const waiting = Array.from({ length: 300 }, (_, i) => add('h', `f${i}`, now - 5_000 + i));
    // Each round promotes every waiting fetch, f0 last (the newest), then runs one
    for (let round = 1; round <= 200; round++) {
      now += 1;
      for (let i = waiting.length - 1; i >= 0; i--) scheduler.promote(waiting[i]!, now * 1_000 - i);
      await finish(running[0]!.name);
    }
    expect(started.slice(0, 4)).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(started).toHaveLength(201);
    // Aged: the rest run oldest first by arrival
    now += 1_000_000;
    while (running.length > 0) await finish(running[0]!.name);
    expect(started.slice(201)).toEqual(Array.from({ length: 99 }, (_, i) => `f${201 + i}`));
  });

  it('still has its backlog after a long run of fresh fetches on the host', async () => {
    let now = 1_000_000;
    const { started, running, add, finish } = harness({ concurrency: 1, perHostConcurrency: 1, now: () => now });
    for (let i = 0; i < 5; i++) add('h', `old${i}`, i);
    for (let i = 0; i < 500; i++) {
      add('h', `new${i}`, now);
      await finish(running[0]!.name);
      now += 1;
    }
    now += 1_000_000;
    while (running.length > 0) await finish(running[0]!.name);
    expect(started.slice(-4)).toEqual(['old1', 'old2', 'old3', 'old4']);
    expect(started).toHaveLength(505);
  });

  describe('a share per account', () => {
    it('leaves another account the slots that one account’s links to servers that never answer would hold', async () => {
      // Given account A's links to servers that never answer, each on a host of its own, alone: it may use every slot
      const { started, running, add, finish } = harness({ concurrency: 4, perHostConcurrency: 1 });
      for (let i = 0; i < 10; i++) add(`a${i}`, `A${i}`, i, 'A');
      expect(started).toEqual(['A0', 'A1', 'A2', 'A3']);
      // When account B's link comes, and one of A's fetches gives up
      add('b0', 'B0', 100, 'B');
      await finish('A0');
      // Then B's runs: A holds its share (half the slots) while B waits
      expect(started.at(-1)).toBe('B0');
      // And with nothing of B's waiting, A takes a slot freed again
      await finish('A1');
      expect(started.at(-1)).toBe('A4');
      // And while B waits, A stays at its share: B takes each slot freed, A's included
      add('b1', 'B1', 101, 'B');
      add('b2', 'B2', 102, 'B');
      await finish('A2');
      expect(started.at(-1)).toBe('B1');
      await finish('B0');
      expect(started.at(-1)).toBe('B2');
      expect(running.map((r) => r.account).sort()).toEqual(['A', 'A', 'B', 'B']);
      // And A takes its turns again as its share allows
      await finish('A3');
      expect(started.at(-1)).toBe('A5');
    });

    it('gives an account below its share its turn on hosts set aside, while another account has a long backlog', async () => {
      const { started, running, add, finish } = harness({ concurrency: 2, perHostConcurrency: 1 });
      for (let i = 0; i < 4; i++) add(`a${i}`, `A${i}`, i, 'A');
      for (let i = 0; i < 40; i++) add(`b${i}`, `B${i}`, 10 + i, 'B');
      expect(started).toEqual(['A0', 'A1']);
      // Each account holds one slot of two while the other waits
      for (let round = 0; round < 30; round++) {
        await finish(running[0]!.name);
        expect(running.map((r) => r.account).sort()).toEqual(['A', 'B']);
        if (!started.some((name) => name.startsWith('A') && !['A0', 'A1'].includes(name))) continue;
        if (started.filter((name) => name.startsWith('A')).length === 4) break;
      }
      expect(started.filter((name) => name.startsWith('A'))).toHaveLength(4);
      while (running.length > 0) await finish(running[0]!.name);
      expect(started).toHaveLength(44);
    });

    it('runs an account past its share rather than leave a slot idle: another account’s fetch behind it gets nearer', async () => {
      const { started, running, add, finish } = harness({ concurrency: 2, perHostConcurrency: 2 });
      add('a', 'A0', 0, 'A');
      add('a', 'A1', 1, 'A');
      add('b', 'A2', 2, 'A');
      add('b', 'C0', 3, 'C');
      expect(started).toEqual(['A0', 'A1']);
      // A holds its share and more, C waits, but only behind A's on host b: A's runs, not nothing
      await finish('A0');
      expect(started.at(-1)).toBe('A2');
      await finish('A1');
      expect(started.at(-1)).toBe('C0');
      expect(running.map((r) => r.name).sort()).toEqual(['A2', 'C0']);
    });

    it('never runs more than the caps, and runs every fetch of every account', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.constantFrom('A', 'B', 'C'), fc.nat({ max: 20_000 })),
            { maxLength: 120 },
          ),
          fc.integer({ min: 1, max: 8 }),
          fc.integer({ min: 1, max: 4 }),
          fc.infiniteStream(fc.nat()),
          async (fetches, concurrency, perHostConcurrency, picks) => {
            const { running, started, add, finish } = harness({ concurrency, perHostConcurrency, now: () => 20_000 });
            fetches.forEach(([host, account, createdAt], i) => add(host, `${account}${i}`, createdAt, account));
            const pick = picks[Symbol.iterator]();
            while (running.length > 0) {
              expect(running.length).toBeLessThanOrEqual(concurrency);
              for (const host of ['a', 'b', 'c', 'd', 'e']) {
                expect(running.filter((r) => r.host === host).length).toBeLessThanOrEqual(perHostConcurrency);
              }
              // Never idle while something could run: an account past its share runs rather than leave a slot idle
              const waiting = fetches.filter(([, account], i) => !started.includes(`${account}${i}`));
              const couldStart = waiting.some(
                ([host]) => running.filter((r) => r.host === host).length < perHostConcurrency,
              );
              expect(couldStart && running.length < concurrency).toBe(false);
              await finish(running[pick.next().value % running.length]!.name);
            }
            expect(started.sort()).toEqual(fetches.map(([, account], i) => `${account}${i}`).sort());
          },
        ),
        { numRuns: 150 },
      );
    });
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
    for (let i = 0; i < 200_000; i++) scheduler.schedule(`host${i % 2}`, 0, i, 'account');
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
    scheduler.schedule('h', 0, 'a', 'account');
    scheduler.schedule('h', 0, 'b', 'account');
    scheduler.done(fetches[0]!);
    expect(() => scheduler.done(fetches[0]!)).toThrow('done with a fetch done');
    expect(scheduler.inFlight).toBe(1);
  });

  describe('a fetch redirected to another host', () => {
    /** Fetches that end, or move, when the test says so; `host` is where each holds (or waits for) its slot. */
    function movable(options: { concurrency: number; perHostConcurrency: number }) {
      const running = new Map<string, { fetch: QueuedFetch<string>; host: string; moving?: Promise<void> }>();
      const started: string[] = [];
      const scheduler = createFetchScheduler<string>({
        freshMs: 10_000,
        now: () => 0,
        ...options,
        start: (fetch) => {
          started.push(fetch.item);
          running.set(fetch.item, { fetch, host: fetch.item[0]! });
        },
      });
      const move = (name: string, host: string, signal?: AbortSignal) => {
        const fetch = running.get(name)!;
        fetch.host = host;
        const moving = scheduler.moveTo(fetch.fetch, host, signal);
        fetch.moving = moving;
        moving.then(
          () => fetch.moving === moving && (fetch.moving = undefined),
          () => undefined,
        );
        return moving;
      };
      const finish = async (name: string) => {
        const { fetch } = running.get(name)!;
        running.delete(name);
        scheduler.done(fetch);
        await flush();
      };
      return { scheduler, running, started, move, finish };
    }

    it('waits for a slot on its new host, ahead of the fetches queued there, and frees its old one at once', async () => {
      // Given one slot a host: a1 runs on a with a2 queued behind it, b1 runs on b with b2 behind it
      const { scheduler, started, move, finish } = movable({ concurrency: 10, perHostConcurrency: 1 });
      for (const name of ['a1', 'a2', 'b1', 'b2']) scheduler.schedule(name[0]!, 0, name, 'account');
      expect(started).toEqual(['a1', 'b1']);
      // When b1 is redirected to a
      let moved = false;
      void move('b1', 'a').then(() => (moved = true));
      await flush();
      // Then b2 takes b's slot at once, and b1 waits for a's
      expect(started).toEqual(['a1', 'b1', 'b2']);
      expect(moved).toBe(false);
      // And a's next slot is b1's, not a2's
      await finish('a1');
      expect(moved).toBe(true);
      expect(started).toEqual(['a1', 'b1', 'b2']);
      await finish('b1');
      expect(started).toEqual(['a1', 'b1', 'b2', 'a2']);
      await finish('a2');
      await finish('b2');
      expect([scheduler.inFlight, scheduler.queued]).toEqual([0, 0]);
    });

    it('gives up waiting when its fetch is aborted, and holds no slot after', async () => {
      const { scheduler, started, move, finish } = movable({ concurrency: 10, perHostConcurrency: 1 });
      for (const name of ['a1', 'b1', 'a2']) scheduler.schedule(name[0]!, 0, name, 'account');
      const abort = new AbortController();
      const moving = move('b1', 'a', abort.signal);
      abort.abort(new Error('timed out'));
      await expect(moving).rejects.toThrow('timed out');
      await finish('b1');
      // a's slot goes to a2 when a1 ends, as if b1 had never asked for it
      await finish('a1');
      expect(started).toEqual(['a1', 'b1', 'a2']);
      await finish('a2');
      expect([scheduler.inFlight, scheduler.queued]).toEqual([0, 0]);
    });

    it('never runs more than the caps on any host, whatever moves where, and runs every fetch', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 60 }),
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 1, max: 3 }),
          fc.infiniteStream(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', 'c', 'end', 'end'))),
          async (hosts, concurrency, perHostConcurrency, steps) => {
            const { scheduler, running, started, move, finish } = movable({ concurrency, perHostConcurrency });
            /** The fetches holding a slot on their host; the others wait to move there. */
            const holding = new Set<string>();
            const scheduled = hosts.map((host, i) => `${host}${i}`);
            scheduled.forEach((name) => scheduler.schedule(name[0]!, 0, name, 'account'));
            const step = steps[Symbol.iterator]();
            while (running.size > 0) {
              for (const name of running.keys()) if (!running.get(name)!.moving) holding.add(name);
              expect(running.size).toBeLessThanOrEqual(concurrency);
              for (const host of ['a', 'b', 'c']) {
                const there = [...running.entries()].filter(([name, r]) => r.host === host && holding.has(name));
                expect(there.length).toBeLessThanOrEqual(perHostConcurrency);
              }
              const [pick, what] = step.next().value;
              const names = [...running.keys()];
              const name = names[pick % names.length]!;
              if (what === 'end' || !holding.has(name)) {
                holding.delete(name);
                await finish(name); // a fetch waiting to move can end too (aborted)
              } else {
                holding.delete(name);
                void move(name, what).then(() => holding.add(name));
                await flush();
              }
            }
            expect(started.sort()).toEqual(scheduled.sort());
            expect([scheduler.inFlight, scheduler.queued]).toEqual([0, 0]);
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});

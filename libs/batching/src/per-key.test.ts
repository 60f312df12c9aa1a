import { concurrencyPerKey, singleFlightPerKey, turnsPerKey } from './per-key';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A run that ends when the test says. */
function held<R>() {
  const ends: ((value: R) => void)[] = [];
  const run = () => new Promise<R>((resolve) => ends.push(resolve));
  return { run, ends };
}

describe('turnsPerKey', () => {
  it('starts a key’s call once the one before it has ended, however it ended; other keys go side by side', async () => {
    const turn = turnsPerKey();
    const started: string[] = [];
    const a1 = turn('a', async () => {
      started.push('a1');
      throw new Error('a1 failed');
    });
    const a2 = turn('a', async () => void started.push('a2'));
    const b1 = turn('b', async () => void started.push('b1'));
    await expect(a1).rejects.toThrow('a1 failed');
    await Promise.all([a2, b1]);
    expect(started).toEqual(['a1', 'b1', 'a2']);
  });
});

describe('concurrencyPerKey', () => {
  it('has at most `limit` calls of a key at work, starts the others in order as calls end, however they end', async () => {
    // Given a limit of 2 and five calls of key a asked at once, and one of key b
    const limit = concurrencyPerKey(2);
    const ends = new Map<string, (ok: boolean) => void>();
    const started: string[] = [];
    const call = (key: string, name: string) =>
      limit(
        key,
        () =>
          new Promise<string>((resolve, reject) => {
            started.push(name);
            ends.set(name, (ok) => (ok ? resolve(name) : reject(new Error(`${name} failed`))));
          }),
      );
    const a = ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => call('a', name));
    const outcomes = Promise.allSettled([...a]);
    const b1 = call('b', 'b1');
    await tick();
    // Then two of a are at work, and b's own count lets b1 start beside them
    expect(started).toEqual(['a1', 'a2', 'b1']);

    // When a2 fails, a3 starts; when a1 ends, a4
    ends.get('a2')!(false);
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    ends.get('a1')!(true);
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    for (const name of ['a3', 'a4', 'b1']) ends.get(name)!(true);
    await tick();
    ends.get('a5')!(true);

    // And each caller gets its own outcome
    expect((await outcomes).map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    await expect(b1).resolves.toBe('b1');
  });
});

describe('singleFlightPerKey', () => {
  it('shares the run under way with whoever joins, and starts another once it has ended', async () => {
    const runs = singleFlightPerKey<number>();
    const { run, ends } = held<number>();
    const joined = [runs.join('a', run), runs.join('a', run)];
    expect(ends).toHaveLength(1);
    ends[0]!(1);
    await expect(Promise.all(joined)).resolves.toEqual([1, 1]);
    void runs.join('a', run);
    expect(ends).toHaveLength(2);
  });

  it('answers `fresh` with the next run, shared by all who ask meanwhile, never with the one under way', async () => {
    const runs = singleFlightPerKey<number>();
    const { run, ends } = held<number>();
    const first = runs.join('a', run);
    const fresh = [runs.fresh('a', run), runs.fresh('a', run), runs.fresh('a', run)];
    ends[0]!(1);
    await first;
    await tick();
    expect(ends).toHaveLength(2);
    ends[1]!(2);
    await expect(Promise.all(fresh)).resolves.toEqual([2, 2, 2]);
  });

  it('starts a new run after `forget`, while the forgotten one is still under way', async () => {
    const runs = singleFlightPerKey<number>();
    const { run, ends } = held<number>();
    void runs.join('a', run);
    runs.forget('a');
    void runs.join('a', run);
    expect(ends).toHaveLength(2);
  });
});

import { coalesceAfter } from './invalidation';

describe('coalesceAfter', () => {
  function deferredCalls() {
    const calls: (() => void)[] = [];
    const fn = coalesceAfter(() => new Promise<number>((resolve) => calls.push(() => resolve(calls.length))));
    return { fn, calls };
  }

  it('never hands a caller the call already under way, and shares the next one', async () => {
    const { fn, calls } = deferredCalls();
    const first = fn();
    const second = fn();
    const third = fn();
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
    const fn = coalesceAfter(async () => {
      if (fail) throw new Error('down');
      return 'ok';
    });
    await expect(fn()).rejects.toThrow('down');
    fail = false;
    expect(await fn()).toBe('ok');
  });
});

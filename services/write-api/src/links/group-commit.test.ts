import { groupCommit } from './group-commit';

describe('groupCommit', () => {
  it('runs the first call alone and the calls that arrive meanwhile together, answering each in order', async () => {
    const batches: number[][] = [];
    const double = groupCommit(async (items: number[]) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 10));
      return items.map((n) => n * 2);
    }, 100);
    const results = await Promise.all([1, 2, 3, 4].map((n) => double(n)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a batch', async () => {
    const sizes: number[] = [];
    const run = groupCommit(async (items: number[]) => {
      sizes.push(items.length);
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => run(n)));
    expect(sizes).toEqual([1, 2, 2]);
  });

  it('fails every call of a failed batch, and carries on with the next', async () => {
    let calls = 0;
    const run = groupCommit(async (items: string[]) => {
      if (calls++ === 1) throw new Error('database away');
      return items;
    }, 10);
    const first = run('a');
    const failed = [run('b'), run('c')];
    await expect(first).resolves.toBe('a');
    for (const f of failed) await expect(f).rejects.toThrow('database away');
    await expect(run('d')).resolves.toBe('d');
  });
});

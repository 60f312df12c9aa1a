import { ClickBatcher } from './click-batcher';

describe('click batcher', () => {
  it('given 100 clicks of one account, closes their batch on the 100th', () => {
    const batcher = new ClickBatcher<number>({ maxItems: 100, maxWaitMs: 1000 });
    for (let i = 1; i < 100; i++) expect(batcher.add('a', i, 0)).toBeNull();
    const batch = batcher.add('a', 100, 0);
    expect(batch?.items).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(batcher.size).toBe(0);
    expect(batcher.nextDueAt()).toBeUndefined();
  });

  it('closes a batch 1 s after its first click, not before, and keeps accounts apart', () => {
    const batcher = new ClickBatcher<string>({ maxItems: 100, maxWaitMs: 1000 });
    batcher.add('a', 'a1', 0);
    batcher.add('b', 'b1', 400);
    batcher.add('a', 'a2', 900);
    expect(batcher.nextDueAt()).toBe(1000);
    expect(batcher.due(999)).toEqual([]);
    expect(batcher.due(1000)).toEqual([{ key: 'a', items: ['a1', 'a2'] }]);
    expect(batcher.nextDueAt()).toBe(1400);
    // A click after its batch closed opens the next
    batcher.add('a', 'a3', 1001);
    expect(batcher.due(1400)).toEqual([{ key: 'b', items: ['b1'] }]);
    expect(batcher.all()).toEqual([{ key: 'a', items: ['a3'] }]);
    expect(batcher.size).toBe(0);
  });
});

import fc from 'fast-check';
import { InOrderCommits } from './in-order-commits';

describe('InOrderCommits', () => {
  it('commits up to the first record not handled, however many after it are done', () => {
    const commits = new InOrderCommits();
    const [r10, r11, r12] = [10n, 11n, 12n].map((o) => commits.take(o));
    expect(commits.nextCommit()).toBeNull();
    commits.settle(r12!, true);
    commits.settle(r11!, true);
    expect(commits.nextCommit()).toBeNull();
    commits.settle(r10!, true);
    expect(commits.nextCommit()).toBe('13');
    expect(commits.nextCommit()).toBeNull();
    expect(commits.size).toBe(0);
  });

  it('gives a failed commit again', () => {
    const commits = new InOrderCommits();
    commits.settle(commits.take(0n), true);
    expect(commits.nextCommit()).toBe('1');
    commits.commitFailed();
    expect(commits.nextCommit()).toBe('1');
  });

  it('never passes a released record, and counts only the first settling of each', () => {
    const commits = new InOrderCommits();
    const [r0, r1, r2] = [0n, 1n, 2n].map((o) => commits.take(o));
    expect(commits.settle(r1!, false)).toBe(true);
    expect(commits.settle(r1!, true)).toBe(false);
    expect(commits.settle(r2!, true)).toBe(true);
    expect(commits.settle(r0!, true)).toBe(true);
    expect(commits.settle(r0!, true)).toBe(false);
    expect(commits.nextCommit()).toBe('1');
    expect(commits.size).toBe(2);
  });

  it('refuses an offset that is not above the last one taken', () => {
    const commits = new InOrderCommits();
    commits.take(5n);
    expect(() => commits.take(5n)).toThrow('offset 5 taken after 5');
  });

  it('never passes an unhandled record, whatever order records are handled in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 3000 }),
        fc.func(fc.nat()),
        fc.nat({ max: 2 ** 40 }),
        (rawOffsets, rank, start) => {
          const offsets = [...rawOffsets].sort((a, b) => a - b);
          const commits = new InOrderCommits();
          const taken = offsets.map((o) => ({ offset: o, sequence: commits.take(BigInt(start + o)), done: false }));
          const order = [...taken].sort((a, b) => rank(a.offset) - rank(b.offset) || a.offset - b.offset);
          let committed = -1;
          for (const t of order) {
            expect(commits.settle(t.sequence, true)).toBe(true);
            t.done = true;
            const next = commits.nextCommit();
            if (next === null) continue;
            // Every record before the committed position is handled; the position only moves on.
            const position = Number(BigInt(next) - BigInt(start));
            expect(position).toBeGreaterThan(committed);
            committed = position;
            expect(taken.filter((x) => x.offset < committed).every((x) => x.done)).toBe(true);
            expect(taken.some((x) => x.offset === committed - 1)).toBe(true);
          }
          expect(committed).toBe(offsets.at(-1)! + 1);
          expect(commits.size).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps its place while records are taken and handled on and on, a few held long', () => {
    // Records taken in a stream, each handled a while later, every 1000th held far longer until
    // the middle: the arrays fill, drop what was passed, grow, and then shrink.
    const commits = new InOrderCommits();
    const pending: { offset: number; sequence: number; until: number }[] = [];
    let committed = 0;
    const wrong: string[] = [];
    for (let offset = 0; offset < 250_000; offset++) {
      pending.push({
        offset,
        sequence: commits.take(BigInt(offset)),
        until: offset + (offset % 1000 || offset > 100_000 ? 50 : 20_000),
      });
      for (let i = pending.length - 1; i >= 0; i--) {
        if (pending[i]!.until > offset) continue;
        commits.settle(pending[i]!.sequence, true);
        pending.splice(i, 1);
      }
      const next = commits.nextCommit();
      if (next !== null) committed = Number(next);
      // (pending is in offset order: its first is the first record not handled)
      const expected = pending[0]?.offset ?? offset + 1;
      if (committed !== expected) wrong.push(`after ${offset}: ${committed}, not ${expected}`);
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});

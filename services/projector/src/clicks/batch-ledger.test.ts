import { decideClaim, type OffsetRange } from './batch-ledger';

const range = (first: number, last: number): OffsetRange => ({ first: BigInt(first), last: BigInt(last) });

describe('claiming the next click batch of a partition', () => {
  it('given no batch yet, the proposed one is claimed and recorded', () => {
    expect(decideClaim(null, range(0, 99))).toEqual({
      claim: { kind: 'insert', range: range(0, 99) },
      record: range(0, 99),
    });
  });

  it('given a pending batch from the same place, it is re-formed as it was, whatever this owner proposes', () => {
    expect(decideClaim({ ...range(0, 39), state: 'pending' }, range(0, 99))).toEqual({
      claim: { kind: 'insert', range: range(0, 39) },
      record: null,
    });
  });

  it('given a pending batch further on, it is re-formed (the records before it are inserted already)', () => {
    expect(decideClaim({ ...range(100, 139), state: 'pending' }, range(0, 199)).claim).toEqual({
      kind: 'insert',
      range: range(100, 139),
    });
  });

  it('given an inserted batch covering the records in hand, they are skipped', () => {
    expect(decideClaim({ ...range(0, 39), state: 'inserted' }, range(0, 99))).toEqual({
      claim: { kind: 'skip', through: 39n },
      record: null,
    });
    expect(decideClaim({ ...range(0, 39), state: 'inserted' }, range(39, 99)).claim).toEqual({
      kind: 'skip',
      through: 39n,
    });
  });

  it('given an inserted batch before the records in hand, the proposed one is next', () => {
    expect(decideClaim({ ...range(0, 39), state: 'inserted' }, range(40, 99))).toEqual({
      claim: { kind: 'insert', range: range(40, 99) },
      record: range(40, 99),
    });
  });

  it('given a pending batch before the records in hand (a manual offset reset forward), the proposed one replaces it', () => {
    expect(decideClaim({ ...range(0, 39), state: 'pending' }, range(500, 599)).record).toEqual(range(500, 599));
  });
});

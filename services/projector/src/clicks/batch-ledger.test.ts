import { decideClaim, type OffsetRange } from './batch-ledger';

const range = (first: number, last: number): OffsetRange => ({ first: BigInt(first), last: BigInt(last) });
const pending = (first: number, last: number, token: string | null = null) => ({
  ...range(first, last),
  state: 'pending' as const,
  token,
});
const inserted = (first: number, last: number) => ({ ...range(first, last), state: 'inserted' as const, token: 't' });

describe('claiming the next click batch of a partition', () => {
  it('given no batch yet, the proposed one is claimed and recorded', () => {
    expect(decideClaim(null, range(0, 99))).toEqual({
      claim: { kind: 'insert', range: range(0, 99), alone: false },
      record: range(0, 99),
    });
  });

  it('given a pending batch bound to no insert, it is re-formed as it was, whatever this owner proposes, and goes alone', () => {
    // An earlier version sent every batch alone under its range's token, and may have sent this one.
    expect(decideClaim(pending(0, 39), range(0, 99))).toEqual({
      claim: { kind: 'insert', range: range(0, 39), alone: true },
      record: null,
    });
  });

  it('given a pending batch bound to an insert, that insert is sent again, whatever this owner proposes', () => {
    expect(decideClaim(pending(0, 39, 'clicks/0/0-39+3/7-9'), range(0, 99))).toEqual({
      claim: { kind: 'resend', range: range(0, 39), token: 'clicks/0/0-39+3/7-9' },
      record: null,
    });
  });

  it('given a pending batch further on, it is re-formed (the records before it are inserted already)', () => {
    expect(decideClaim(pending(100, 139), range(0, 199)).claim).toEqual({
      kind: 'insert',
      range: range(100, 139),
      alone: true,
    });
  });

  it('given an inserted batch covering the records in hand, they are skipped', () => {
    expect(decideClaim(inserted(0, 39), range(0, 99))).toEqual({
      claim: { kind: 'skip', through: 39n },
      record: null,
    });
    expect(decideClaim(inserted(0, 39), range(39, 99)).claim).toEqual({
      kind: 'skip',
      through: 39n,
    });
  });

  it('given an inserted batch before the records in hand, the proposed one is next', () => {
    expect(decideClaim(inserted(0, 39), range(40, 99))).toEqual({
      claim: { kind: 'insert', range: range(40, 99), alone: false },
      record: range(40, 99),
    });
  });

  it('given a pending batch before the records in hand (a manual offset reset forward), the proposed one replaces it', () => {
    expect(decideClaim(pending(0, 39, 'x'), range(500, 599)).record).toEqual(range(500, 599));
  });
});

import { deduplicationToken } from './deduplicated-insert';

const batch = (partition: number, first: bigint, last: bigint) => ({ partition, range: { first, last } });

describe('the deduplication token of a click insert', () => {
  it('of one batch is the token the earlier versions gave it, whoever forms the batch', () => {
    expect(deduplicationToken('shortlink.clicks.v1', [batch(3, 100n, 199n)])).toBe('shortlink.clicks.v1/3/100-199');
  });

  it('of several batches names each, whatever order they came in', () => {
    const token = deduplicationToken('t', [batch(7, 5n, 9n), batch(2, 0n, 40n)]);
    expect(token).toBe('t/2/0-40+7/5-9');
    expect(deduplicationToken('t', [batch(2, 0n, 40n), batch(7, 5n, 9n)])).toBe(token);
  });

  it('differs when the topic, a partition, a range or the set of batches does', () => {
    const base = batch(0, 0n, 9n);
    const tokens = new Set([
      deduplicationToken('t', [base]),
      deduplicationToken('u', [base]),
      deduplicationToken('t', [batch(1, 0n, 9n)]),
      deduplicationToken('t', [batch(0, 0n, 10n)]),
      deduplicationToken('t', [batch(0, 1n, 9n)]),
      deduplicationToken('t', [base, batch(1, 0n, 9n)]),
      deduplicationToken('t', [base, batch(1, 0n, 8n)]),
      // A partition number whose digits continue another's range would make one text of two sets.
      deduplicationToken('t', [batch(1, 2n, 3n), batch(45, 6n, 7n)]),
      deduplicationToken('t', [batch(1, 2n, 34n), batch(5, 6n, 7n)]),
    ]);
    expect(tokens.size).toBe(9);
  });
});

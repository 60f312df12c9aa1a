import { deduplicationToken } from './deduplicated-insert';

describe('the deduplication token of a click batch', () => {
  it('is the same for the same source, whoever forms the batch', () => {
    const source = { topic: 'shortlink.clicks.v1', partition: 3, range: { first: 100n, last: 199n } };
    expect(deduplicationToken(source)).toBe('shortlink.clicks.v1/3/100-199');
    expect(deduplicationToken({ ...source, range: { first: 100n, last: 199n } })).toBe(deduplicationToken(source));
  });

  it('differs when the topic, the partition or the range does', () => {
    const base = { topic: 't', partition: 0, range: { first: 0n, last: 9n } };
    const tokens = new Set([
      deduplicationToken(base),
      deduplicationToken({ ...base, topic: 'u' }),
      deduplicationToken({ ...base, partition: 1 }),
      deduplicationToken({ ...base, range: { first: 0n, last: 10n } }),
      deduplicationToken({ ...base, range: { first: 1n, last: 9n } }),
    ]);
    expect(tokens.size).toBe(5);
  });
});

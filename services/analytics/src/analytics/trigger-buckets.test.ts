import { triggerBuckets } from './trigger-buckets';

describe('the triggers of a range', () => {
  it('are the followed clicks (the total less the scans) and the scans, most first, both always listed', () => {
    expect(triggerBuckets(0, [])).toEqual([
      { name: 'link', count: 0 },
      { name: 'qr', count: 0 },
    ]);
    expect(triggerBuckets(10, [{ name: 'qr', count: 3 }])).toEqual([
      { name: 'link', count: 7 },
      { name: 'qr', count: 3 },
    ]);
    expect(triggerBuckets(10, [{ name: 'qr', count: 8 }])).toEqual([
      { name: 'qr', count: 8 },
      { name: 'link', count: 2 },
    ]);
  });
});

import { FilteredTally } from './filtered-tally';

const A = { linkId: '0190a6c2-0000-7000-8000-00000000000a', accountId: '0190a6c2-0000-7000-8000-0000000000a1' };
const B = { linkId: '0190a6c2-0000-7000-8000-00000000000b', accountId: '0190a6c2-0000-7000-8000-0000000000b1' };
const DAY1 = Date.parse('2026-12-05T23:59:59.999Z');
const DAY2 = Date.parse('2026-12-06T00:00:00.000Z');

describe('the filtered tally', () => {
  it('counts per link, UTC day, reason and family, each with its own account', () => {
    const tally = new FilteredTally();
    tally.count(A, { reason: 'crawler', family: 'googlebot' }, DAY1);
    tally.count(A, { reason: 'crawler', family: 'googlebot' }, DAY1);
    tally.count(A, { reason: 'crawler', family: 'googlebot' }, DAY2);
    tally.count(A, { reason: 'crawler', family: 'slackbot' }, DAY2);
    tally.count(B, { reason: 'head' }, DAY2);
    expect(tally.take().counts).toEqual([
      { ...A, day: '2026-12-05', reason: 'crawler', family: 'googlebot', count: 2 },
      { ...A, day: '2026-12-06', reason: 'crawler', family: 'googlebot', count: 1 },
      { ...A, day: '2026-12-06', reason: 'crawler', family: 'slackbot', count: 1 },
      { ...B, day: '2026-12-06', reason: 'head', count: 1 },
    ]);
  });

  it('starts afresh once taken', () => {
    const tally = new FilteredTally();
    tally.count(A, { reason: 'prefetch' }, DAY1);
    tally.countUnknownSlug(DAY1);
    expect(tally.isEmpty).toBe(false);
    tally.take();
    expect(tally.isEmpty).toBe(true);
    expect(tally.take()).toEqual({ counts: [], unknownSlugs: [] });
    // The metric's count goes on.
    expect(tally.unknownSlugHits).toBe(1);
  });

  it('counts unknown slugs per day, and nothing of the slug', () => {
    const tally = new FilteredTally();
    tally.countUnknownSlug(DAY1);
    tally.countUnknownSlug(DAY2);
    tally.countUnknownSlug(DAY2);
    expect(tally.take().unknownSlugs).toEqual([
      { day: '2026-12-05', count: 1 },
      { day: '2026-12-06', count: 2 },
    ]);
    expect(tally.unknownSlugHits).toBe(3);
  });

  it('holds at most its keys: the redirects of a new key beyond them are dropped and counted', () => {
    const tally = new FilteredTally(2);
    tally.count(A, { reason: 'head' }, DAY1);
    tally.count(B, { reason: 'head' }, DAY1);
    tally.count(A, { reason: 'prefetch' }, DAY1);
    tally.count(A, { reason: 'head' }, DAY1);
    expect(tally.dropped).toBe(1);
    expect(tally.take().counts.map((c) => c.count)).toEqual([2, 1]);
  });
});

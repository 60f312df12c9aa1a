import { isRange, rangeDays } from './range';

const now = new Date('2026-11-22T23:59:59.999Z');
const created = new Date('2026-11-01T08:00:00.000Z');

describe('rangeDays', () => {
  it('covers today and the days before it, oldest first', () => {
    const r = rangeDays('7d', now, created);
    expect(r).toEqual({
      from: '2026-11-16',
      to: '2026-11-22',
      days: ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'],
      wholeLife: false,
    });
    expect(rangeDays('30d', now, created).days).toHaveLength(30);
    expect(rangeDays('90d', now, created).days).toHaveLength(90);
    expect(rangeDays('90d', now, created).from).toBe('2026-08-25');
  });

  it('runs `all` from the creation day, in UTC', () => {
    const r = rangeDays('all', now, created);
    expect(r.from).toBe('2026-11-01');
    expect(r.days).toHaveLength(22);
    expect(rangeDays('all', now, new Date('2026-11-22T00:00:00.000Z')).days).toEqual(['2026-11-22']);
  });

  it('says when a range holds the link’s whole life', () => {
    expect(rangeDays('all', now, created).wholeLife).toBe(true);
    expect(rangeDays('30d', now, created).wholeLife).toBe(true);
    expect(rangeDays('7d', now, created).wholeLife).toBe(false);
    // The first day of the range is the creation day: whole.
    expect(rangeDays('7d', now, new Date('2026-11-16T23:00:00.000Z')).wholeLife).toBe(true);
    expect(rangeDays('7d', now, new Date('2026-11-15T23:59:59.999Z')).wholeLife).toBe(false);
  });

  it('crosses month and year ends', () => {
    expect(rangeDays('7d', new Date('2027-01-02T01:00:00Z'), created).days[0]).toBe('2026-12-27');
  });
});

describe('isRange', () => {
  it('accepts only the four ranges', () => {
    expect(['7d', '30d', '90d', 'all'].every(isRange)).toBe(true);
    expect(['1d', '7D', '', '365d', 'ALL'].some(isRange)).toBe(false);
  });
});

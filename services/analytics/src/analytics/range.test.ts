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

  it('holds a click dated the day before the link was created (clocks apart across midnight)', () => {
    // Given a link created on the 16th whose first click is dated the 15th
    const createdOn16 = new Date('2026-11-16T00:00:00.010Z');
    const clickDays = { first: '2026-11-15', last: '2026-11-22' };
    // Then `all` starts on the 15th and holds the whole life
    expect(rangeDays('all', now, createdOn16, clickDays)).toMatchObject({ from: '2026-11-15', wholeLife: true });
    // And `7d`, from the 16th, does not: that click is outside it
    expect(rangeDays('7d', now, createdOn16, clickDays)).toMatchObject({ from: '2026-11-16', wholeLife: false });
    expect(rangeDays('7d', now, createdOn16).wholeLife).toBe(true);
  });

  it('ends on the day of a click dated after today (its redirector’s clock ahead)', () => {
    const r = rangeDays('7d', now, created, { first: '2026-11-01', last: '2026-11-23' });
    expect([r.from, r.to, r.days.length]).toEqual(['2026-11-17', '2026-11-23', 7]);
    expect(rangeDays('all', now, created, { first: '2026-11-01', last: '2026-11-23' }).days).toHaveLength(23);
  });

  it('is the clock’s range when the clicks are within it', () => {
    const within = { first: '2026-11-02', last: '2026-11-21' };
    for (const range of ['7d', '30d', '90d', 'all'] as const) {
      expect(rangeDays(range, now, created, within)).toEqual(rangeDays(range, now, created));
    }
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

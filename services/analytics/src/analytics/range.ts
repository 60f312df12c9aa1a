export const RANGES = ['7d', '30d', '90d', 'all'] as const;
export type Range = (typeof RANGES)[number];

export function isRange(value: string): value is Range {
  return (RANGES as readonly string[]).includes(value);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS));
}

/** The first and last UTC days of a link's clicks, as the click records date them. */
export interface ClickDays {
  first: string;
  last: string;
}

export interface RangeDays {
  /** First and last UTC day, `YYYY-MM-DD`. */
  from: string;
  to: string;
  days: string[];
  /** The range starts on or before the link's first day: it holds every click of the link. */
  wholeLife: boolean;
}

const earlier = (a: string, b: string | undefined) => (b !== undefined && b < a ? b : a);
const later = (a: string, b: string | undefined) => (b !== undefined && b > a ? b : a);

/**
 * The UTC days a range covers, oldest first: `7d` is today and the 6 days before (likewise 30d, 90d); `all` runs from
 * the creation day. Clicks, creation and "today" come from three clocks, so across midnight a click may fall before the
 * creation day or on tomorrow: given `clickDays`, `all` starts at the earlier of creation and first click, and every
 * range ends at the later of today and the last click, so the unique visitors are always those of the clicks counted.
 */
export function rangeDays(range: Range, now: Date, linkCreatedAt: Date, clickDays?: ClickDays): RangeDays {
  const to = later(utcDay(now), clickDays?.last);
  const firstDay = earlier(utcDay(linkCreatedAt), clickDays?.first);
  let from: string;
  if (range === 'all') from = firstDay < to ? firstDay : to;
  else from = addDays(to, -(Number.parseInt(range, 10) - 1));
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
  return { from, to, days, wholeLife: from <= firstDay };
}

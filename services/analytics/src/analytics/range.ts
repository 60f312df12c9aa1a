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

/**
 * The UTC days a range covers, oldest first: `7d` is today and the 6 days
 * before it (likewise 30d and 90d); `all` runs from the link's creation day.
 * `wholeLife`: the range starts on or before the creation day, so it holds
 * every click of the link, as `all` does (a link younger than the range).
 */
export function rangeDays(
  range: Range,
  now: Date,
  linkCreatedAt: Date,
): { from: string; to: string; days: string[]; wholeLife: boolean } {
  const to = utcDay(now);
  let from: string;
  if (range === 'all') from = utcDay(linkCreatedAt) < to ? utcDay(linkCreatedAt) : to;
  else from = addDays(to, -(Number.parseInt(range, 10) - 1));
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
  return { from, to, days, wholeLife: from <= utcDay(linkCreatedAt) };
}

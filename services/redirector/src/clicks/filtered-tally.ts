import type { RedirectsFiltered } from '@shortlink/events';
import type { Filtered } from './countable-click';

const DAY_MS = 86_400_000;

type Counted = RedirectsFiltered['data']['counts'][number];

interface Entry {
  linkId: string;
  accountId: string;
  /** Days since the epoch (UTC): a number on the redirect path, a date only when taken. */
  day: number;
  filtered: Filtered;
  count: number;
}

/** What a tally held when it was taken: ready for RedirectsFiltered events. */
export interface TakenTally {
  counts: Counted[];
  unknownSlugs: { day: string; count: number }[];
}

/** Keys held at most: beyond it, a new key's redirects are dropped and counted (`dropped`), never memory grown. */
export const FILTERED_TALLY_MAX_KEYS = 100_000;

const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * The redirects answered but not counted, tallied in memory on the redirect path: one Map entry per link, day,
 * reason and family, incremented in place. No network, nothing else of the request kept. `take` hands over what was
 * counted since the last take and starts afresh.
 */
export class FilteredTally {
  private entries = new Map<string, Entry>();
  private unknown = new Map<number, number>();
  /** Every hit on an unknown slug since start: the metric's source. */
  unknownSlugHits = 0;
  /** Filtered redirects not counted because the tally was full. */
  dropped = 0;

  constructor(private readonly maxKeys = FILTERED_TALLY_MAX_KEYS) {}

  count(link: { linkId: string; accountId: string }, filtered: Filtered, at: number): void {
    const day = Math.floor(at / DAY_MS);
    const key = `${link.linkId}|${day}|${filtered.reason}|${filtered.family ?? ''}`;
    const entry = this.entries.get(key);
    if (entry) entry.count++;
    else if (this.entries.size >= this.maxKeys) this.dropped++;
    else this.entries.set(key, { linkId: link.linkId, accountId: link.accountId, day, filtered, count: 1 });
  }

  countUnknownSlug(at: number): void {
    const day = Math.floor(at / DAY_MS);
    this.unknown.set(day, (this.unknown.get(day) ?? 0) + 1);
    this.unknownSlugHits++;
  }

  get isEmpty(): boolean {
    return this.entries.size === 0 && this.unknown.size === 0;
  }

  take(): TakenTally {
    const entries = this.entries;
    const unknown = this.unknown;
    this.entries = new Map();
    this.unknown = new Map();
    return {
      counts: [...entries.values()].map(({ linkId, accountId, day, filtered, count }) => ({
        linkId,
        accountId,
        day: dayText(day),
        reason: filtered.reason,
        ...(filtered.family === undefined ? {} : { family: filtered.family }),
        count,
      })),
      unknownSlugs: [...unknown].map(([day, count]) => ({ day: dayText(day), count })),
    };
  }
}

import { CRAWLER_FAMILIES, FILTER_REASONS } from '@shortlink/events';
import type { Bucket } from './trigger-buckets';

/** A link's redirects that were not counted as clicks, over the range of its analytics answer. */
export interface FilteredSummary {
  total: number;
  /** Every reason with its redirects, most first (ties by name). */
  reasons: Bucket[];
  /** The crawlers' redirects by family, most first (ties by name); families without any are left out. */
  crawlers: Bucket[];
}

export interface FilteredCount {
  reason: string;
  family: string;
  count: number;
}

const byCount = (a: Bucket, b: Bucket) => b.count - a.count || a.name.localeCompare(b.name);
const reasons = new Set<string>(FILTER_REASONS);
const families = new Set<string>(CRAWLER_FAMILIES);

/** The `filtered` object of the analytics answer from the table's counts; only names of the fixed lists pass. */
export function filteredSummary(counts: readonly FilteredCount[]): FilteredSummary {
  const byReason = new Map<string, number>(FILTER_REASONS.map((r) => [r, 0]));
  const byFamily = new Map<string, number>();
  let total = 0;
  for (const { reason, family, count } of counts) {
    if (!reasons.has(reason) || count <= 0) continue;
    total += count;
    byReason.set(reason, (byReason.get(reason) ?? 0) + count);
    if (reason === 'crawler') {
      const name = families.has(family) ? family : 'other';
      byFamily.set(name, (byFamily.get(name) ?? 0) + count);
    }
  }
  return {
    total,
    reasons: [...byReason].map(([name, count]) => ({ name, count })).sort(byCount),
    crawlers: [...byFamily].map(([name, count]) => ({ name, count })).sort(byCount),
  };
}

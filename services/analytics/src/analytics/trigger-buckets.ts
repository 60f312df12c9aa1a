export interface Bucket {
  name: string;
  count: number;
}

/**
 * Every trigger with its clicks, most first: the table holds only the scans
 * (link_daily_scans_mv), and a link's followed clicks are the rest of its total.
 */
export function triggerBuckets(totalClicks: number, scans: readonly Bucket[]): Bucket[] {
  const qr = scans.find((b) => b.name === 'qr')?.count ?? 0;
  const buckets = [
    { name: 'link', count: Math.max(0, totalClicks - qr) },
    { name: 'qr', count: qr },
  ];
  return buckets.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

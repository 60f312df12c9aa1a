import { createHash, randomUUID } from 'node:crypto';

/** A row of the `clicks` table, as the projector inserts it. */
export interface ClickRow {
  event_id: string;
  link_id: string;
  account_id: string;
  slug: string;
  /** `YYYY-MM-DD hh:mm:ss.mmm`, UTC. */
  clicked_at: string;
  visitor_hash: string;
  referrer: string;
  country: string;
  device: string;
  browser: string;
  os: string;
  source_partition: number;
  source_offset: number;
  trigger: string;
}

/** A row of a data team's export of Postgres `links` (`link_export` in docs/clickhouse.md). */
export interface LinkExportRow {
  link_id: string;
  account_id: string;
  slug: string;
  tag: string;
  created_at: string;
  deleted_at: string | null;
  version: number;
}

/** What a seeded link is for: `days` back from today where its clicks fall, or none. */
interface LinkPlan {
  slug: string;
  /** Tags of its versions, oldest first: a retag is a second version. */
  tags: string[];
  deleted?: boolean;
  clicks: number;
  /** Inclusive range of days before today its clicks are on. */
  daysAgo: [number, number];
}

export interface SeededLink {
  id: string;
  accountId: string;
  slug: string;
}

export interface TwoAccounts {
  accountA: string;
  accountB: string;
  links: Map<string, SeededLink>;
  clicks: ClickRow[];
  /** Each export in its own insert: the newest version of a link wins only when read with FINAL. */
  exports: LinkExportRow[][];
}

// Origins as the redirector stores them, a hostile one among them: every string from a visitor is data.
const REFERRERS = [
  'Direct',
  'https://news.ycombinator.com',
  'https://www.google.com',
  'https://t.co',
  'android-app://com.slack',
  'https://xn--mnchen-3ya.de',
  "https://evil.example'); DROP TABLE clicks; --",
];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'JP', 'BR', 'XX'];
const DEVICES = ['desktop', 'mobile', 'tablet', 'smarttv'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Unknown'];
const OSES = ['Windows', 'Mac OS', 'iOS', 'Android', 'Linux', 'Unknown'];

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed, the same clicks. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY_MS = 86_400_000;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** ClickHouse's text form of a DateTime64(3, 'UTC'). */
export function clickhouseTime(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}
export const dayOf = (time: string): string => time.slice(0, 10);
export const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Two accounts' links and clicks over the 45 days up to today, with known referrers, countries,
 * devices, browsers, triggers and visitors. The accounts share visitors (one visitor hash, two
 * accounts' links) and account B's clicks start earlier, so any question that lets B's rows in
 * answers differently. Account A has, besides busy links: a retagged link, a deleted one, one never
 * clicked, one clicked only long ago, one clicked only in the last two days, and a deleted old one.
 */
export function twoAccountsClicks(todayMs: number, seed = 50): TwoAccounts {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const accountA = randomUUID();
  const accountB = randomUUID();
  const plans: [account: string, plan: LinkPlan][] = [
    [accountA, { slug: 'spring-one', tags: ['spring'], clicks: 500, daysAgo: [0, 44] }],
    [accountA, { slug: 'spring-two', tags: ['spring'], clicks: 350, daysAgo: [0, 44] }],
    [accountA, { slug: 'autumn-one', tags: ['autumn'], clicks: 400, daysAgo: [0, 44] }],
    [accountA, { slug: 'untagged', tags: [''], clicks: 300, daysAgo: [0, 44] }],
    [accountA, { slug: 'retagged', tags: ['spring', 'autumn'], clicks: 450, daysAgo: [0, 44] }],
    [accountA, { slug: 'deleted', tags: ['spring', 'spring'], deleted: true, clicks: 250, daysAgo: [10, 44] }],
    [accountA, { slug: 'never-clicked', tags: ['spring'], clicks: 0, daysAgo: [0, 0] }],
    [accountA, { slug: 'long-ago', tags: ['autumn'], clicks: 40, daysAgo: [33, 44] }],
    [accountA, { slug: 'just-now', tags: ['autumn'], clicks: 30, daysAgo: [0, 1] }],
    [accountA, { slug: 'gone-long-ago', tags: ['', ''], deleted: true, clicks: 20, daysAgo: [35, 44] }],
    [accountB, { slug: 'bravo-spring', tags: ['spring'], clicks: 500, daysAgo: [0, 44] }],
    [accountB, { slug: 'bravo-autumn', tags: ['autumn'], clicks: 300, daysAgo: [2, 44] }],
    [accountB, { slug: 'bravo-idle', tags: ['spring'], clicks: 10, daysAgo: [40, 44] }],
  ];
  const today = Date.parse(new Date(todayMs).toISOString().slice(0, 10) + 'T00:00:00Z');
  const links = new Map<string, SeededLink>();
  const clicks: ClickRow[] = [];
  const firstExport: LinkExportRow[] = [];
  const secondExport: LinkExportRow[] = [];
  let offset = 0;
  for (const [accountId, plan] of plans) {
    const link = { id: randomUUID(), accountId, slug: plan.slug };
    links.set(plan.slug, link);
    plan.tags.forEach((tag, i) => {
      const last = i === plan.tags.length - 1;
      (i === 0 ? firstExport : secondExport).push({
        link_id: link.id,
        account_id: accountId,
        slug: plan.slug,
        tag,
        created_at: clickhouseTime(today - 50 * DAY_MS + 1234),
        deleted_at: last && plan.deleted ? clickhouseTime(today - 3 * DAY_MS) : null,
        version: i + 1,
      });
    });
    const [nearest, farthest] = plan.daysAgo;
    for (let i = 0; i < plan.clicks; i++) {
      const daysAgo = nearest + Math.floor(next() * (farthest - nearest + 1));
      // Later days reach further into the visitor pool: new visitors keep arriving, old ones return.
      const visitor = Math.floor(next() * (20 + 4 * (44 - daysAgo)));
      // Today's clicks are before now: a click is never in the future.
      const span = daysAgo === 0 ? Math.max(1, todayMs - today) : DAY_MS;
      const at = today - daysAgo * DAY_MS + Math.floor(next() * span);
      clicks.push({
        event_id: randomUUID(),
        link_id: link.id,
        account_id: accountId,
        slug: plan.slug,
        clicked_at: clickhouseTime(at),
        visitor_hash: createHash('sha256').update(`visitor-${visitor}`).digest('hex'),
        referrer: pick(REFERRERS),
        country: pick(COUNTRIES),
        device: pick(DEVICES),
        browser: pick(BROWSERS),
        os: pick(OSES),
        source_partition: 0,
        source_offset: offset++,
        trigger: next() < 0.2 ? 'qr' : 'link',
      });
    }
  }
  return { accountA, accountB, links, clicks, exports: [firstExport, secondExport] };
}

import type { CrawlerFamily, FilterReason } from '@shortlink/events';
import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import { botKind } from './crawler-family';

export interface RequestFacts {
  method: string;
  userAgent: string | undefined;
  purpose: string | undefined;
  secPurpose: string | undefined;
  xMoz: string | undefined;
}

/** Why a redirect is not a click: a reason, and for a crawler its family (CRAWLER_FAMILIES). */
export type Filtered =
  { reason: Exclude<FilterReason, 'crawler'>; family?: undefined } | { reason: 'crawler'; family: CrawlerFamily };

/**
 * Only a person's visit counts: not HEAD requests (any method but GET), not an empty user agent, not a browser's
 * prefetch, not HTTP libraries (curl, python-requests, ...), and not crawlers and link unfurlers (isbot knows Slack,
 * Twitter, Facebook, Discord, WhatsApp, Telegram). Each is still redirected, and counted apart by its reason.
 * Returns undefined for a click. The answers are shared objects: nothing is made per request.
 */
export function filteredAs(facts: RequestFacts): Filtered | undefined {
  if (facts.method !== 'GET') return HEAD;
  const ua = facts.userAgent?.trim();
  if (!ua) return NO_USER_AGENT;
  if (/prefetch|prerender/i.test(facts.secPurpose ?? '') || /prefetch|preview/i.test(facts.purpose ?? '')) {
    return PREFETCH;
  }
  if (/prefetch/i.test(facts.xMoz ?? '')) return PREFETCH;
  return botVerdict(ua);
}

export function isCountable(facts: RequestFacts): boolean {
  return filteredAs(facts) === undefined;
}

const HEAD: Filtered = { reason: 'head' };
const NO_USER_AGENT: Filtered = { reason: 'no_user_agent' };
const PREFETCH: Filtered = { reason: 'prefetch' };
const HTTP_LIBRARY: Filtered = { reason: 'http_library' };
const CRAWLERS = new Map<CrawlerFamily, Filtered>();
const crawler = (family: CrawlerFamily): Filtered => {
  let verdict = CRAWLERS.get(family);
  if (!verdict) CRAWLERS.set(family, (verdict = { reason: 'crawler', family }));
  return verdict;
};

/**
 * isbot's pattern is one large regular expression, unremembered the largest
 * cost of capturing a click on the redirect thread. Real traffic repeats a
 * few thousand user agents, so the answer is
 * remembered; bounded, so odd agents cannot grow it. A person is remembered
 * as `HUMAN` (the cache holds no undefined).
 */
const HUMAN = 'human';
const botVerdicts = new LRUCache<string, Filtered | typeof HUMAN>({ max: 10_000 });

function botVerdict(userAgent: string): Filtered | undefined {
  let verdict = botVerdicts.get(userAgent);
  if (verdict === undefined) {
    if (!isbot(userAgent)) verdict = HUMAN;
    else {
      const kind = botKind(userAgent);
      verdict = kind === 'http_library' ? HTTP_LIBRARY : crawler(kind);
    }
    botVerdicts.set(userAgent, verdict);
  }
  return verdict === HUMAN ? undefined : verdict;
}

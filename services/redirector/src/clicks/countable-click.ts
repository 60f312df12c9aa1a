import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';

export interface RequestFacts {
  method: string;
  userAgent: string | undefined;
  purpose: string | undefined;
  secPurpose: string | undefined;
  xMoz: string | undefined;
}

/**
 * Only a person's visit counts: not HEAD requests, not an empty user agent,
 * not crawlers and link unfurlers (isbot knows Slack, Twitter, Facebook,
 * Discord, WhatsApp, Telegram, curl and HTTP libraries), and not a browser's
 * prefetch. Each is still redirected.
 */
export function isCountable(facts: RequestFacts): boolean {
  if (facts.method !== 'GET') return false;
  const ua = facts.userAgent?.trim();
  if (!ua) return false;
  if (/prefetch|prerender/i.test(facts.secPurpose ?? '') || /prefetch|preview/i.test(facts.purpose ?? '')) return false;
  if (/prefetch/i.test(facts.xMoz ?? '')) return false;
  return !isBot(ua);
}

/**
 * isbot's pattern is one large regular expression, unremembered the largest
 * cost of capturing a click on the redirect thread. Real traffic repeats a
 * few thousand user agents, so the answer is
 * remembered; bounded, so odd agents cannot grow it.
 */
const botVerdicts = new LRUCache<string, boolean>({ max: 10_000 });

function isBot(userAgent: string): boolean {
  let verdict = botVerdicts.get(userAgent);
  if (verdict === undefined) {
    verdict = isbot(userAgent);
    botVerdicts.set(userAgent, verdict);
  }
  return verdict;
}

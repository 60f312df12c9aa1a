import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';

export interface UserAgentClass {
  device: string;
  browser: string;
  os: string;
}

/** Mobile and embedded variants are the same browser family to a reader of analytics. */
function browserFamily(name: string | undefined): string {
  if (!name) return 'Unknown';
  const family = name
    .replace(/^Mobile /, '')
    .replace(/ (Mobile|WebView|Headless)$/, '')
    .trim();
  if (family === 'Edge' || family.startsWith('Microsoft Edge')) return 'Edge';
  return family || 'Unknown';
}

/**
 * Device type, browser family and OS of a user agent (ua-parser-js 1.x, MIT).
 * ua-parser-js names no type for desktops, so no type is `desktop`; other types
 * (`smarttv`, `console`, `wearable`, …) keep their own names.
 */
export function classifyUserAgent(userAgent: string): UserAgentClass {
  const known = classified.get(userAgent);
  if (known) return known;
  const result = new UAParser(userAgent).getResult();
  const outcome: UserAgentClass = Object.freeze({
    device: result.device.type ?? 'desktop',
    browser: browserFamily(result.browser.name),
    os: result.os.name ?? 'Unknown',
  });
  classified.set(userAgent, outcome);
  return outcome;
}

/**
 * Parsing costs tens of microseconds a click, and real traffic repeats a few
 * thousand user agents: unremembered, the parser is the projector's largest
 * cost (docs/decisions/0014-projector-per-click-costs.md). Bounded, so odd agents cannot grow it.
 */
const classified = new LRUCache<string, UserAgentClass>({ max: 10_000 });

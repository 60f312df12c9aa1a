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
  const result = new UAParser(userAgent).getResult();
  return {
    device: result.device.type ?? 'desktop',
    browser: browserFamily(result.browser.name),
    os: result.os.name ?? 'Unknown',
  };
}

import type { BrowserContext, Page } from 'playwright-core';
import { LINK_PAGE_READY, LINKS_PAGE_READY } from '../../bench/src/dashboard-ready';

/**
 * Every page of the dashboard, once: the accessibility checks, `npm run screenshots` and the bench walk this list,
 * so a new page is checked, pictured and timed by adding one entry here.
 */
export interface DashboardPage {
  /** A word for test titles and the screenshots' file names. */
  name: string;
  /** The page's hash route; `{slug}` stands for a seeded link's slug. */
  hash: string;
  /** Shown only with a key in the tab (the links), or only without one (sign-in). */
  signedIn: boolean;
  /** A selector (CSS, or Playwright's CSS with `:text-is()`) present once the page has drawn everything it loads. */
  ready: string;
}

export const PAGES: readonly DashboardPage[] = [
  { name: 'sign-in', hash: '', signedIn: false, ready: '#api-key' },
  { name: 'links', hash: '#/links', signedIn: true, ready: LINKS_PAGE_READY },
  { name: 'link', hash: '#/links/{slug}', signedIn: true, ready: LINK_PAGE_READY },
  // Playwright's selector engine: the total is shown once both of the page's requests have answered.
  { name: 'account', hash: '#/account', signedIn: true, ready: '#account-total-clicks:not(:text-is("…"))' },
];

/** The links seeded so that no page is empty; the first is the one `{slug}` stands for. */
export const SEEDED_LINKS = [
  { url: 'https://example.com/spring/launch?utm_source=newsletter', customSlug: 'spring-launch', tag: 'newsletter' },
  { url: 'https://example.com/docs/getting-started', customSlug: 'docs-start', tag: 'docs' },
  { url: 'https://example.com/pricing', customSlug: 'plans-2027', tag: 'site' },
  { url: 'https://example.com/blog/how-we-count-clicks', customSlug: 'blog-clicks', tag: 'blog' },
] as const;

/** Browsers' own user agents: the redirector counts a person's visit, never a crawler's or a script's. */
const VISITORS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
];

export const dashboardUrl = (base: string, page: DashboardPage, slug: string = SEEDED_LINKS[0].customSlug): string =>
  `${base}/dashboard${page.hash.replace('{slug}', encodeURIComponent(slug))}`;

/** The key in the tab before any script of the page runs, as "Sign in" leaves it (sessionStorage only). */
export async function signInContext(context: BrowserContext, key: string): Promise<void> {
  // A string, as the tests are compiled without the DOM's types; the key is quoted by JSON.
  await context.addInitScript(`sessionStorage.setItem('shortlink.apiKey', ${JSON.stringify(key)})`);
}

/** Opens `page` of the dashboard and waits until it is ready; a signed-in page needs `signInContext` first. */
export async function openPage(tab: Page, base: string, page: DashboardPage, timeoutMs = 15_000): Promise<void> {
  const res = await tab.goto(dashboardUrl(base, page));
  if (res?.status() !== 200) throw new Error(`${page.name}: HTTP ${res?.status()}`);
  await tab.locator(page.ready).first().waitFor({ timeout: timeoutMs });
}

/**
 * The seeded links, made through the API (an existing slug is kept, so a second run against the same service adds
 * nothing), and `clicks[i]` visits to each through the redirector with a browser's user agent.
 */
export async function seedLinks(base: string, key: string, clicks: readonly number[] = [42, 17, 5, 0]): Promise<void> {
  for (const [i, link] of SEEDED_LINKS.entries()) {
    const res = await fetch(`${base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(link),
    });
    if (res.status === 409) continue;
    if (res.status !== 201) throw new Error(`seeding ${link.customSlug}: HTTP ${res.status} ${await res.text()}`);
    // Under `npm start` one port answers the API and the short URLs, whatever PUBLIC_BASE_URL says.
    for (let c = 0; c < (clicks[i] ?? 0); c++) {
      const visit = await fetch(`${base}/${link.customSlug}`, {
        redirect: 'manual',
        headers: { 'user-agent': VISITORS[c % VISITORS.length] ?? '' },
      });
      await visit.arrayBuffer();
    }
  }
}

/** Waits until the analytics of the first seeded link counts `clicks` (the pipeline is asynchronous). */
export async function waitForClicks(base: string, key: string, clicks: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/api/v1/links/${SEEDED_LINKS[0].customSlug}/analytics?range=7d`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const total = res.ok ? ((await res.json()) as { totalClicks: number }).totalClicks : -1;
    if (total >= clicks) return;
    if (Date.now() > deadline) throw new Error(`${total} clicks counted after ${timeoutMs} ms, expected ${clicks}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LINKS_PAGE_READY } from '../bench/src/dashboard-ready';
import { launchChromium, problemsOf } from './support/chromium';
import { createKeyWithCli } from './support/cli';
import {
  openPage,
  PAGES,
  seedLinks,
  signInContext,
  waitForClicks,
  type DashboardPage,
} from './support/dashboard-pages';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Every page of the dashboard (test/support/dashboard-pages.ts) as people with other means use it, in Debian's
 * Chromium against `npm start` (embedded): axe-core finds nothing serious or critical, in light and dark; on a
 * 360 px screen nothing scrolls sideways and every control is reached by Tab, shown on screen and visibly focused;
 * and a person signs in and creates a link with the keyboard alone.
 */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const NARROW = { width: 360, height: 740 };

let dataDir: string;
let app: RunningProcess;
let browser: Browser;
let key: string;

beforeAll(async () => {
  buildOnce();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-a11y-'));
  app = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir });
  key = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  // Pages with rows, tags and counted clicks: an empty page hides most of what could be wrong.
  await seedLinks(app.url, key, [3, 1, 0, 0]);
  await waitForClicks(app.url, key, 3);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A context for `page`, signed in when the page needs it, with every console error and page error it meets. */
async function contextFor(
  page: DashboardPage,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; tab: Page; problems: string[] }> {
  const context = await browser.newContext(options);
  if (page.signedIn) await signInContext(context, key);
  const tab = await context.newPage();
  return { context, tab, problems: problemsOf(tab) };
}

describe.each(PAGES)('the $name page', (page) => {
  it.each(['light', 'dark'] as const)(
    'has no serious or critical axe-core violation (%s)',
    async (colorScheme) => {
      // axe-core goes in as an inline <script>, which the page's own CSP (script-src 'self') refuses: this context
      // alone bypasses the CSP, for the injection. The other checks run under the CSP, as the browser test does.
      const { context, tab } = await contextFor(page, { bypassCSP: true, colorScheme });
      await openPage(tab, app.url, page);
      await tab.addScriptTag({ content: AXE_SOURCE });
      const results = await tab.evaluate<AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
      const grave = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(grave).toEqual([]);
      await context.close();
    },
    60_000,
  );

  it('fits 360 px with every control reached by Tab, on screen and visibly focused', async () => {
    const { context, tab, problems } = await contextFor(page, { viewport: NARROW });
    await openPage(tab, app.url, page);
    expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(NARROW.width);

    // Every control a person could use, numbered so the Tab walk can say which it reached. (The tests are compiled
    // without the DOM's types: what runs in the page is a string.)
    const controls = await tab.evaluate<string[]>(`
      [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
        .filter((e) => e.tabIndex >= 0 && !e.matches(':disabled') && e.getClientRects().length > 0)
        .map((e, i) => {
          e.dataset.checkIndex = String(i);
          return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "' + e.textContent.trim().slice(0, 30) + '"';
        })`);
    expect(controls.length).toBeGreaterThan(0);
    const reached = new Map<string, string>();
    for (let i = 0; i < controls.length * 2 + 5 && reached.size < controls.length; i++) {
      await tab.keyboard.press('Tab');
      const focused = await tab.evaluate<{ index: string; onScreen: boolean; focusShown: boolean } | null>(`(() => {
        const e = document.activeElement;
        if (!e || !e.dataset || !e.dataset.checkIndex) return null;
        const rect = e.getBoundingClientRect();
        const style = getComputedStyle(e);
        const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
        return {
          index: e.dataset.checkIndex,
          onScreen: rect.width > 0 && rect.left >= 0 && rect.right <= window.innerWidth + 0.5,
          focusShown: outlined || style.boxShadow !== 'none',
        };
      })()`);
      if (focused) {
        const what = controls[Number(focused.index)] ?? focused.index;
        reached.set(
          focused.index,
          `${what}${focused.onScreen ? '' : ' off screen'}${focused.focusShown ? '' : ' without a visible focus'}`,
        );
      }
    }
    // Each control once, in the page's order, on screen and with its focus shown.
    expect([...reached.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v)).toEqual(controls);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});

/** Presses Tab until the element with `id` has the focus; fails after `limit` presses. */
async function tabTo(tab: Page, id: string, limit = 20): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await tab.keyboard.press('Tab');
    if ((await tab.evaluate('document.activeElement && document.activeElement.id')) === id) return;
  }
  throw new Error(`#${id} was not reached in ${limit} presses of Tab`);
}

it('signs in and creates a link with the keyboard alone', async () => {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const problems = problemsOf(tab);
  await tab.goto(`${app.url}/dashboard`);
  // Sign in: Tab to the field, type, Enter
  await tabTo(tab, 'api-key');
  await tab.keyboard.type(key);
  await tab.keyboard.press('Enter');
  await tab.locator(LINKS_PAGE_READY).waitFor();
  // Create: Tab to the destination, type, Tab to the slug, type, Enter
  await tabTo(tab, 'link-url');
  await tab.keyboard.type('https://example.com/by-keyboard');
  await tabTo(tab, 'link-slug', 1);
  await tab.keyboard.type('by-keyboard');
  await tab.keyboard.press('Enter');
  await tab.getByRole('row', { name: /by-keyboard/ }).waitFor();
  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

import type { Browser, Locator, Page } from 'playwright-core';
import { CHROME_UA, launchChromium, problemsOf, signIn } from './support/chromium';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * The dashboard's account page (`#/account`) in Debian's Chromium against every service in one
 * process on real Kafka, Postgres and ClickHouse (composed as `npm start` composes them, served on a port): the account's
 * clicks and visitors, its top links and tags (a hostile tag shown as text), and a range the plan does not read
 * shown locked with the API's reason.
 */
const HOSTILE = '<img src=x onerror="window.pwned=1">';

let system: LinkSystem;
const app = { url: '' };
let browser: Browser;
const keys = { pro: '', free: '' };

beforeAll(async () => {
  system = await startLinkSystem();
  app.url = await system.app.listen({ host: '127.0.0.1', port: 0 });
  keys.pro = system.proKey;
  keys.free = system.freeKey;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.close();
});

async function createLink(key: string, slug: string, tag: string): Promise<void> {
  const res = await fetch(`${app.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `https://example.com/${slug}`, customSlug: slug, tag }),
  });
  expect(res.status).toBe(201);
}

async function click(slug: string): Promise<void> {
  const res = await fetch(`${app.url}/${slug}`, {
    redirect: 'manual',
    headers: { 'user-agent': CHROME_UA, 'x-forwarded-for': '8.8.8.8' },
  });
  expect(res.status).toBe(302);
  await system.flushClicks();
}

async function openAccountPage(key: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = problemsOf(page);
  expect((await page.goto(`${app.url}/dashboard`))?.status()).toBe(200);
  await signIn(page, key);
  await page.getByRole('heading', { name: 'Links', exact: true }).waitFor();
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
  return { page, problems };
}

/**
 * Each row's cells, tab-separated. Not `innerText`: while a range is redrawn the table may not be laid out for a
 * moment, and `innerText` of an element not laid out drops the tabs between cells.
 */
const cellTexts = (rows: Locator) =>
  rows.evaluateAll((trs) =>
    (trs as unknown as { cells: ArrayLike<{ textContent: string | null }> }[]).map((tr) =>
      Array.from(tr.cells, (cell) => cell.textContent ?? '').join('\t'),
    ),
  );

it('shows the account’s clicks, visitors, top links and top tags, and locks a range the plan does not read', async () => {
  await createLink(keys.pro, 'acct-one', HOSTILE);
  await createLink(keys.pro, 'acct-two', 'plain');
  for (const slug of ['acct-one', 'acct-one', 'acct-two']) await click(slug);

  const { page, problems } = await openAccountPage(keys.pro);
  // The clicks reach the page about a second after the redirects: choose the range again until they show.
  const total = page.locator('#account-total-clicks');
  for (let i = 0; i < 60 && (await total.textContent()) !== '3'; i++) {
    await page.waitForTimeout(500);
    await page.getByRole('button', { name: '7 days' }).click();
  }
  expect(await total.textContent()).toBe('3');
  expect(await page.locator('#account-unique-visitors').textContent()).toBe('1');
  const linkRows = page.getByRole('table', { name: 'Links with the most clicks' }).locator('tbody tr');
  expect(await cellTexts(linkRows)).toEqual(['acct-one\t2\t1', 'acct-two\t1\t1']);
  const tagRows = page.getByRole('table', { name: /Tags with the most clicks/ }).locator('tbody tr');
  expect(await cellTexts(tagRows)).toEqual([`${HOSTILE}\t2\t1`, 'plain\t1\t1']);
  expect(await page.evaluate('window.pwned')).toBeUndefined();
  expect(problems).toEqual([]);
  await page.context().close();

  // A free plan's 90 days: locked, with the API's reason, and the page keeps its range.
  const free = await openAccountPage(keys.free);
  await free.page.locator('#account-total-clicks').filter({ hasText: '0' }).waitFor();
  await free.page.getByRole('button', { name: '90 days' }).click();
  await free.page.getByRole('button', { name: '90 days (locked)' }).waitFor();
  await free.page.getByText('The 90d range requires the Pro plan. This plan (free) reads 7d and 30d.').waitFor();
  expect(await free.page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed')).toBe('true');
  expect(free.problems).toEqual([]);
  await free.page.context().close();
}, 120_000);

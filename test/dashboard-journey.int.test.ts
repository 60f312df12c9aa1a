import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROME_UA, launchChromium, problemsOf, signIn, startLocalSite } from './support/chromium';
import { createKeyWithCli } from './support/cli';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * One person's first use of the dashboard, end to end in Debian's Chromium against `npm start` as it is: a wrong key
 * is told; the right one signs in; a link is created; a visitor in a real browser follows the short URL from a page
 * on another site, and the link's page (live) shows that click within 5 s with the referrer's origin, the device and
 * the browser; the QR code is downloaded, read back as a camera would, scanned, and counted as a scan; another
 * account's key never sees the link; a program's and a link checker's redirects are shown as not counted.
 */
/** The bound: a click seen on the dashboard this long after it was made at most. */
const SEEN_WITHIN_MS = 5000;

let dataDir: string;
let app: RunningProcess;
let browser: Browser;
let site: Awaited<ReturnType<typeof startSite>>;
const keys = { owner: '', other: '' };

/** Another site: a post linking to the short URL (`/post?to=`), and the destination the link leads to (`/landed`). */
const startSite = () =>
  startLocalSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const to = url.searchParams.get('to') ?? '';
    const body =
      url.pathname === '/post'
        ? `<!doctype html><title>A post</title><a id="go" href="${to.replaceAll('"', '&quot;')}">Read more</a>`
        : '<!doctype html><title>Landed</title><h1>Landed</h1>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });

beforeAll(async () => {
  buildOnce();
  site = await startSite();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-journey-'));
  app = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir });
  keys.owner = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  keys.other = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await site?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A tab on the dashboard that records every console error, page error and dialog (none is expected). */
async function dashboardTab(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems = problemsOf(page);
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`${app.url}/dashboard`);
  return { page, problems };
}

const breakdown = (page: Page, name: string) =>
  page.locator('section.breakdown', { has: page.getByRole('heading', { name }) });

it('signs in, creates a link, sees a real click from another site within 5 s, and counts a scan of its QR code', async () => {
  const context = await browser.newContext({ userAgent: CHROME_UA, acceptDownloads: true });
  const { page, problems } = await dashboardTab(context);

  // Given a wrong key, the page says so and stays on sign-in
  await signIn(page, `${keys.owner}x`);
  await page.getByText('This key was not accepted').waitFor();
  // When the right key is given and a link is created
  await signIn(page, keys.owner);
  await page.getByRole('heading', { name: 'Links', exact: true }).waitFor();
  await page.getByLabel('Destination URL').fill(`${site.origin}/landed`);
  await page.getByLabel('Custom slug (optional)').fill('journey');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'journey', exact: true }).click();
  await page.getByRole('heading', { name: 'journey', level: 1 }).waitFor();
  const shortUrl = (await page.locator('.short-url').getByRole('link').first().getAttribute('href')) ?? '';
  expect(shortUrl).toMatch(/\/journey$/);
  // And its page is live
  await page.getByLabel('Live updates').check();

  // When a visitor follows the short URL from a post on another site, in a real browser
  const visitor = await context.newPage();
  await visitor.goto(`${site.origin}/post?to=${encodeURIComponent(shortUrl)}`);
  const clickedAt = Date.now();
  await Promise.all([visitor.waitForURL(`${site.origin}/landed`), visitor.click('#go')]);

  // Then within 5 s the link's page shows the click: the referrer's origin, a desktop, Chrome
  await breakdown(page, 'Referrers')
    .getByRole('row', { name: `${site.origin} 1` })
    .waitFor({ timeout: SEEN_WITHIN_MS });
  expect(Date.now() - clickedAt).toBeLessThanOrEqual(SEEN_WITHIN_MS);
  await breakdown(page, 'Devices').getByRole('row', { name: 'desktop 1' }).waitFor({ timeout: 1000 });
  await breakdown(page, 'Browsers').getByRole('row', { name: 'Chrome 1' }).waitFor({ timeout: 1000 });
  await breakdown(page, 'Link or QR code')
    .getByRole('row', { name: 'Short link followed 1' })
    .waitFor({ timeout: 1000 });

  // And the ranges switch, each showing the one click
  for (const range of ['30d', '90d', 'all', '7d']) {
    await page.getByRole('button', { name: range, exact: true }).click();
    await page.locator('button[aria-pressed="true"]', { hasText: range }).waitFor();
    await page.locator('.totals').getByText('1', { exact: true }).first().waitFor();
  }

  // When the QR code is downloaded and read as a phone's camera reads it
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download PNG' }).click(),
  ]);
  const image = PNG.sync.read(await readFile((await download.path()) ?? ''));
  const scanned = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  expect(scanned).toBe(`${shortUrl}?qr=1`);
  // And a phone opens it
  const phone = await context.newPage();
  await phone.goto(scanned ?? '');
  expect(phone.url()).toBe(`${site.origin}/landed`);

  // Then the page counts it as a scan, beside the followed click
  await breakdown(page, 'Link or QR code').getByRole('row', { name: 'QR code scanned 1' }).waitFor({ timeout: 10_000 });
  await breakdown(page, 'Link or QR code').getByRole('row', { name: 'Short link followed 1' }).waitFor();

  // When a program (curl) and a link checker (HEAD) follow it too, they are answered but not counted
  for (const method of ['GET', 'HEAD']) {
    const answer = await fetch(shortUrl, { method, redirect: 'manual', headers: { 'user-agent': 'curl/8.5.0' } });
    expect(answer.status).toBe(302);
  }
  // Then the page shows each by its reason (the redirector tallies them every 5 s), and the clicks stay two
  await breakdown(page, 'Not counted')
    .getByRole('row', { name: 'Programs such as curl 1' })
    .waitFor({ timeout: 20_000 });
  await breakdown(page, 'Not counted').getByRole('row', { name: 'Not a GET (link checkers) 1' }).waitFor();
  expect(await page.locator('.totals dd').allTextContents()).toEqual(['2', '1', '2']);
  expect(problems).toEqual([]);

  // And another account's key sees neither the link in its list nor its page
  const other = await browser.newContext();
  const { page: otherPage, problems: otherProblems } = await dashboardTab(other);
  await signIn(otherPage, keys.other);
  await otherPage.getByText('No links yet.').waitFor();
  await otherPage.goto(`${app.url}/dashboard#/links/journey`);
  await otherPage.getByText('Link not found', { exact: false }).first().waitFor();
  expect(await otherPage.content()).not.toContain(site.origin);
  expect(otherProblems).toEqual([]);
  await other.close();
  await context.close();
}, 120_000);

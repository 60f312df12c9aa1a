import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@shortlink/testing';
import { CHROME_UA, launchChromium, problemsOf, signIn, startLocalSite } from './support/chromium';
import { createKeyWithCli } from './support/cli';
import { buildOnce, ROOT, startProcess, type RunningProcess } from './support/processes';

/**
 * The dashboard as a person uses it, in Debian's Chromium against `npm start` as it is (embedded): a wrong key is
 * told at sign-in; a right one is kept in the tab's sessionStorage only; links are created (the API's error shown
 * beside its field), listed, edited and deleted; a hostile tag is shown as text; another account's key never sees the
 * first account's links; a link's page shows its chart, breakdowns, plan-locked ranges, a hostile preview as text and
 * its QR code; and the page runs under its strict Content-Security-Policy without a violation.
 */
/** What a hostile destination page says about itself: markup for a title, and its image over plain `http`. */
const HOSTILE_TITLE = '<img src=x onerror=alert(1)>';
const HOSTILE_DESCRIPTION = '<script>alert(2)</script> & more';

const run = promisify(execFile);
let dataDir: string;
let app: RunningProcess;
let browser: Browser;
const keys = { a: '', b: '', free: '' };
/** A destination on this machine (the preview worker may read it here): its page, and how often its image was asked. */
let destination: { origin: string; imageHits: () => number; close(): Promise<void> };

async function startDestination(): Promise<typeof destination> {
  let imageHits = 0;
  const attribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
  const site = await startLocalSite((req, res) => {
    if (req.url?.startsWith('/cover.png')) {
      imageHits++;
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>
      <meta property="og:title" content="${attribute(HOSTILE_TITLE)}">
      <meta property="og:description" content="${attribute(HOSTILE_DESCRIPTION)}">
      <meta property="og:image" content="/cover.png">
      </head><body></body></html>`);
  });
  return { ...site, imageHits: () => imageHits };
}

beforeAll(async () => {
  buildOnce();
  destination = await startDestination();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-dashboard-'));
  // The previews of this test's destinations are on 127.0.0.1, which a production worker never reads.
  app = await startProcess('deploy/standalone/dist/main.js', {
    DATA_DIR: dataDir,
    PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  keys.a = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  keys.b = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  keys.free = await createKeyWithCli({ DATA_DIR: dataDir }, 'free');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await destination?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The API as an integrator calls it, with a key. */
async function callApi(key: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function createLink(key: string, url: string, customSlug: string, tag?: string): Promise<void> {
  const res = await callApi(key, 'POST', '/api/v1/links', { url, customSlug, ...(tag ? { tag } : {}) });
  expect(res.status).toBe(201);
}

/**
 * A fresh tab on the dashboard, with every console error and page error it meets (CSP violations are both), and
 * every dialog that opened (each accepted).
 */
async function openDashboard(
  viewport = { width: 1280, height: 800 },
): Promise<{ page: Page; problems: string[]; dialogs: string[] }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems = problemsOf(page);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.accept();
  });
  const res = await page.goto(`${app.url}/dashboard`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  return { page, problems, dialogs };
}

/** Once the list has each row's 7-day clicks: what the page asks of the analytics after this is a link page's. */
async function listSettled(page: Page): Promise<void> {
  await pageHolds(
    page,
    "(() => { const cells = [...document.querySelectorAll('td.number')]; return cells.length > 0 && cells.every((td) => td.textContent !== '…'); })()",
  );
}

/** Waits until `expression` is true in the page: evaluated from outside, since the page's policy forbids `eval`. */
async function pageHolds(page: Page, expression: string): Promise<void> {
  await eventually(async () => ((await page.evaluate(expression)) === true ? true : undefined), 15_000, expression);
}

it('tells a wrong key at sign-in, and keeps a right one in the tab only', async () => {
  const { page, problems } = await openDashboard();
  // Given a wrong key
  await signIn(page, `${keys.a}x`);
  await page.getByText('This key was not accepted').waitFor();
  // When the right one is given
  await signIn(page, keys.a);
  await page.getByRole('heading', { name: 'Links', exact: true }).waitFor();
  // Then it is in sessionStorage, in no cookie and no URL
  expect(await page.evaluate('sessionStorage.getItem("shortlink.apiKey")')).toBe(keys.a);
  expect(await page.context().cookies()).toEqual([]);
  expect(page.url()).not.toContain(keys.a);
  // And "Sign out" forgets it
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  expect(await page.evaluate('sessionStorage.getItem("shortlink.apiKey")')).toBeNull();
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("creates, lists and deletes links, shows the API's error beside its field and hostile text as text", async () => {
  const { page, problems } = await openDashboard();
  await signIn(page, keys.a);
  const hostile = '<img src=x onerror="window.pwned=1">';

  // When a link is created with a custom slug and a hostile tag
  await page.getByLabel('Destination URL').fill('https://example.com/dashboard');
  await page.getByLabel('Custom slug (optional)').fill('dash-one');
  await page.getByLabel('Tag (optional)').fill(hostile);
  await page.getByRole('button', { name: 'Create link' }).click();
  // Then it is listed, its tag shown as the text it is and never run
  const row = page.getByRole('row', { name: /dash-one/ });
  await row.waitFor();
  await row.getByText(hostile).waitFor();
  expect(await page.evaluate('window.pwned')).toBeUndefined();

  // When the same slug is asked for again, the API's words are shown beside the slug field
  await page.getByLabel('Destination URL').fill('https://example.com/again');
  await page.getByLabel('Custom slug (optional)').fill('dash-one');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.locator('#link-slug-error').getByText('This slug is already taken').waitFor();
  expect(await page.getByLabel('Custom slug (optional)').getAttribute('aria-invalid')).toBe('true');

  // When it is searched for, and then deleted (the confirmation accepted)
  await page.getByLabel('Search').fill('dash-one');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('button', { name: 'Delete dash-one' }).click();
  await page.getByText('Deleted dash-one.').waitFor();
  await page.getByText('No link matches.').waitFor();
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("never shows one account's links to another account's key", async () => {
  // Given a link of account a
  const made = await fetch(`${app.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.a}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/only-a', customSlug: 'only-a' }),
  });
  expect(made.status).toBe(201);
  // When account b signs in
  const { page, problems } = await openDashboard();
  await signIn(page, keys.b);
  await page.getByText('No links yet.').waitFor();
  // Then a's link is nowhere on the page
  expect(await page.content()).not.toContain('only-a');
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("edits a link's destination and tag in the list, the API's refusal shown beside the field", async () => {
  await createLink(keys.a, 'https://example.com/before', 'dash-edit', 'old-tag');
  const { page, problems } = await openDashboard();
  await signIn(page, keys.a);
  const row = page.getByRole('row', { name: /dash-edit/ });
  await row.waitFor();

  // When the destination is changed to something that is no URL
  await row.getByRole('button', { name: 'Edit dash-edit' }).click();
  const destination = page.getByLabel('Destination of dash-edit');
  await destination.fill('not a url');
  await page.getByRole('button', { name: 'Save' }).click();
  // Then the API's words are shown beside it, and nothing changed
  await page.locator('#edit-dash-edit-url-error').getByText('Invalid request body').waitFor();
  expect(await destination.getAttribute('aria-invalid')).toBe('true');

  // When a good destination and a new tag are saved
  await destination.fill('https://example.com/after');
  await page.getByLabel('Tag of dash-edit').fill('new-tag');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved dash-edit.').waitFor();
  // Then the row shows them, and so does the API
  await row.getByText('https://example.com/after').waitFor();
  await row.getByText('new-tag').waitFor();
  expect(await (await callApi(keys.a, 'GET', '/api/v1/links/dash-edit')).json()).toMatchObject({
    destinationUrl: 'https://example.com/after',
    tag: 'new-tag',
  });

  // When the tag is emptied, it is removed
  await row.getByRole('button', { name: 'Edit dash-edit' }).click();
  await page.getByLabel('Tag of dash-edit').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await eventually(async () => {
    const link = (await (await callApi(keys.a, 'GET', '/api/v1/links/dash-edit')).json()) as { tag: unknown };
    return link.tag === null ? true : undefined;
  });
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it('edits and opens a link on a branded domain apart from the same slug on ours', async () => {
  // Given a verified domain (as the operator's command verifies one) and one slug on it and on ours
  expect((await callApi(keys.a, 'POST', '/api/v1/domains', { hostname: 'go.dash.example' })).status).toBe(201);
  await run(process.execPath, [join(ROOT, 'libs/domains/dist/domains-cli.js'), 'verify', 'go.dash.example'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
  });
  await createLink(keys.a, 'https://example.com/ours', 'dash-twin');
  const onDomain = await callApi(keys.a, 'POST', '/api/v1/links', {
    url: 'https://example.com/theirs',
    customSlug: 'dash-twin',
    domain: 'go.dash.example',
  });
  expect(onDomain.status).toBe(201);
  const { page, problems } = await openDashboard();
  await signIn(page, keys.a);
  const row = page.getByRole('row', { name: /go\.dash\.example\/dash-twin/ });
  await row.waitFor();

  // When the domain's link is edited in the list
  await row.getByRole('button', { name: 'Edit go.dash.example/dash-twin' }).click();
  await page.getByLabel('Destination of go.dash.example/dash-twin').fill('https://example.com/theirs-2');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved go.dash.example/dash-twin.').waitFor();
  // Then that link changed, and ours of the same slug did not
  expect(await (await callApi(keys.a, 'GET', '/api/v1/links/dash-twin?domain=go.dash.example')).json()).toMatchObject({
    destinationUrl: 'https://example.com/theirs-2',
  });
  expect(await (await callApi(keys.a, 'GET', '/api/v1/links/dash-twin')).json()).toMatchObject({
    destinationUrl: 'https://example.com/ours',
  });

  // And its page is its own: its short URL on the domain (with the installation's scheme)
  await page.getByRole('link', { name: 'go.dash.example/dash-twin' }).click();
  await page.getByRole('heading', { name: 'go.dash.example/dash-twin' }).waitFor();
  expect(page.url()).toMatch(/#\/links\/go\.dash\.example\/dash-twin$/);
  const { shortUrl } = (await onDomain.json()) as { shortUrl: string };
  expect(shortUrl).toMatch(/^https?:\/\/go\.dash\.example\/dash-twin$/);
  await page.getByRole('button', { name: `Copy ${shortUrl}` }).waitFor();
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("opens a link's page from the list: its short URL to copy, chart, visitors, breakdowns and ranges", async () => {
  // Given a link with three clicks: two followed (one from a referrer), one scanned
  await createLink(keys.a, 'https://example.com/page', 'dash-page');
  const visit = (path: string, referer?: string) =>
    fetch(`${app.url}${path}`, {
      redirect: 'manual',
      headers: { 'user-agent': CHROME_UA, ...(referer ? { referer } : {}) },
    });
  expect((await visit('/dash-page', 'https://news.example.org/post')).status).toBe(302);
  expect((await visit('/dash-page')).status).toBe(302);
  expect((await visit('/dash-page?qr=1')).status).toBe(302);
  await eventually(async () => {
    const res = await callApi(keys.a, 'GET', '/api/v1/links/dash-page/analytics?range=7d');
    return ((await res.json()) as { totalClicks: number }).totalClicks === 3 ? true : undefined;
  }, 30_000);

  const { page, problems } = await openDashboard();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/analytics?')) asked.push(new URL(r.url()).searchParams.get('range') ?? '');
  });
  await signIn(page, keys.a);
  await listSettled(page);
  asked.length = 0;
  // When the link is opened from the list
  await page.getByRole('link', { name: 'dash-page', exact: true }).click();
  await page.getByRole('heading', { name: 'dash-page', level: 1 }).waitFor();
  expect(page.url()).toContain('#/links/dash-page');

  // Then its short URL is there to copy
  const { shortUrl } = (await (await callApi(keys.a, 'GET', '/api/v1/links/dash-page')).json()) as { shortUrl: string };
  await page.getByRole('button', { name: `Copy ${shortUrl}` }).click();
  await page.getByText('Copied.').waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(shortUrl);

  // And its clicks: the chart drawn, the totals, and each breakdown
  await page.locator('.chart canvas').first().waitFor();
  const totals = page.locator('.totals');
  await totals.getByText('3', { exact: true }).waitFor();
  await totals.getByText('Unique visitors').waitFor();
  const table = (name: string) => page.locator('section.breakdown', { has: page.getByRole('heading', { name }) });
  await table('Referrers').getByRole('row', { name: 'https://news.example.org 1' }).waitFor();
  await table('Referrers').getByRole('row', { name: 'Direct 2' }).waitFor();
  await table('Countries').getByRole('row', { name: 'XX 3' }).waitFor();
  await table('Devices').getByRole('row', { name: 'desktop 3' }).waitFor();
  await table('Browsers').getByRole('row', { name: 'Chrome 3' }).waitFor();
  await table('Link or QR code').getByRole('row', { name: 'Short link followed 2' }).waitFor();
  await table('Link or QR code').getByRole('row', { name: 'QR code scanned 1' }).waitFor();

  // When the ranges are switched, by pointer and by keyboard
  await page.getByRole('button', { name: '30d', exact: true }).click();
  await page.locator('button[aria-pressed="true"]', { hasText: '30d' }).waitFor();
  await page.getByRole('button', { name: 'all', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.locator('button[aria-pressed="true"]', { hasText: 'all' }).waitFor();
  await page.getByText('Clicks per day as a table').click();
  // Then each was asked of the API and drawn ("all" starts on the link's creation day, today)
  expect(asked).toEqual(['7d', '30d', 'all']);
  await totals.getByText('3', { exact: true }).waitFor();
  // The totals read 3 in every range: the table is drawn from the `all` answer once it has one day.
  await eventually(async () => ((await page.locator('.chart-table tbody tr').count()) === 1 ? true : undefined));
  expect(problems).toEqual([]);
  await page.context().close();
}, 90_000);

it('shows the ranges a free plan does not read locked, with why, and never asks for them', async () => {
  await createLink(keys.free, 'https://example.com/free', 'dash-free');
  const { page, problems } = await openDashboard();
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/analytics?')) asked.push(new URL(r.url()).searchParams.get('range') ?? '');
  });
  await signIn(page, keys.free);
  await listSettled(page);
  asked.length = 0;
  await page.goto(`${app.url}/dashboard#/links/dash-free`);
  await page.locator('.chart canvas').first().waitFor();

  // Then 90d and all are locked, saying why, and 7d and 30d are not
  for (const range of ['90d', 'all']) {
    const button = page.getByRole('button', { name: `${range} (locked)` });
    expect(await button.getAttribute('aria-disabled')).toBe('true');
  }
  await page.getByText('Locked: 90d needs the Pro plan; all needs the Pro plan.').waitFor();
  expect(await page.getByRole('button', { name: '30d', exact: true }).getAttribute('aria-disabled')).toBeNull();
  // When a locked one is pressed (it stays in the keyboard's path, to be told why), it says why and asks nothing
  await page.getByRole('button', { name: '90d (locked)' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').getByText('90d needs the Pro plan.').waitFor();
  expect(asked).toEqual(['7d']);

  // When the plan is not known (the account read failing), the API's 403 locks the range all the same
  await page.route('**/api/v1/account', (route) => route.fulfill({ status: 503, body: '{}' }));
  await page.reload();
  await page.getByRole('button', { name: '90d', exact: true }).click();
  await page.getByText('Locked: The 90d range requires the Pro plan.').waitFor();
  expect(await page.getByRole('button', { name: '90d (locked)' }).getAttribute('aria-disabled')).toBe('true');
  expect(asked).toContain('90d');
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("shows a destination's hostile preview as text, and an image only from an https address", async () => {
  // Given a link to a page whose title and description are markup and whose image is on plain http
  await createLink(keys.a, `${destination.origin}/hostile`, 'dash-hostile');
  const preview = await eventually(async () => {
    const res = await callApi(keys.a, 'GET', '/api/v1/links/dash-hostile');
    const body = (await res.json()) as { preview: { status: string; title: string; image: string } };
    return body.preview.status === 'ready' ? body.preview : undefined;
  }, 30_000);
  expect(preview).toMatchObject({ title: HOSTILE_TITLE, image: `${destination.origin}/cover.png` });

  const { page, problems, dialogs } = await openDashboard();
  await signIn(page, keys.a);
  await page.goto(`${app.url}/dashboard#/links/dash-hostile`);
  // Then the title and description are shown as the text they are, no image is made of them or of the http one
  const previewBox = page.locator('section.preview');
  await previewBox.getByText(HOSTILE_TITLE, { exact: true }).waitFor();
  await previewBox.getByText(HOSTILE_DESCRIPTION, { exact: true }).waitFor();
  expect(await previewBox.locator('img').count()).toBe(0);
  expect(await page.locator('script:not([src])').count()).toBe(0);
  expect(destination.imageHits()).toBe(0);

  // When the API's answer names a javascript:, data: or https image (a read as a hostile one could be)
  for (const [image, shown] of [
    ['javascript:alert(1)', false],
    ['data:image/svg+xml,<svg onload=alert(1)>', false],
    ['https://images.example/cover.png', true],
  ] as const) {
    await page.route('**/api/v1/links/dash-hostile', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { preview: Record<string, unknown> };
      await route.fulfill({ response: res, json: { ...body, preview: { ...body.preview, image } } });
    });
    const imageAsked = page.waitForRequest('https://images.example/cover.png', { timeout: 5000 }).then(
      () => true,
      () => false,
    );
    await page.route('https://images.example/**', (route) =>
      route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }),
    );
    await page.reload();
    await previewBox.getByText(HOSTILE_TITLE, { exact: true }).waitFor();
    // Then only the https one is an image; the others are not loaded and run nothing
    expect(await previewBox.locator('img').count()).toBe(shown ? 1 : 0);
    if (shown) expect(await imageAsked).toBe(true);
    await page.unroute('**/api/v1/links/dash-hostile');
  }
  expect(dialogs).toEqual([]);
  expect(problems).toEqual([]);
  await page.context().close();
}, 90_000);

it('shows the QR code, downloads it as a PNG, and polls in live mode until it is turned off', async () => {
  await createLink(keys.a, 'https://example.com/qr', 'dash-qr');
  const { page, problems } = await openDashboard();
  await signIn(page, keys.a);
  await page.goto(`${app.url}/dashboard#/links/dash-qr`);

  // Then the QR code is an image drawn from the API's SVG
  const qr = page.getByRole('img', { name: 'QR code of dash-qr' });
  await qr.waitFor();
  await pageHolds(
    page,
    "(() => { const img = document.querySelector('.qr img'); return img !== null && img.complete && img.naturalWidth > 0; })()",
  );
  expect(await qr.getAttribute('src')).toMatch(/^blob:/);
  // And "Download PNG" saves a PNG named after the link
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download PNG' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('dash-qr-qr.png');
  const png = await readFile((await download.path()) ?? '');
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

  // When live mode is on, the analytics are asked again every second or so; off, no more
  await page.locator('.chart canvas').first().waitFor();
  let asked = 0;
  page.on('request', (r) => void (r.url().includes('/analytics?') && asked++));
  await page.getByLabel('Live updates').check();
  await page.waitForTimeout(2500);
  expect(asked).toBeGreaterThanOrEqual(2);
  await page.getByLabel('Live updates').uncheck();
  await page.waitForTimeout(1200);
  const after = asked;
  await page.waitForTimeout(2000);
  expect(asked).toBe(after);
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

it("fits a link's page into a 360 px wide screen", async () => {
  await createLink(keys.a, 'https://example.com/a-rather-long-destination/that/goes/on/and/on?x=1', 'dash-narrow');
  const { page, problems } = await openDashboard({ width: 360, height: 740 });
  await signIn(page, keys.a);
  await page.goto(`${app.url}/dashboard#/links/dash-narrow`);
  await page.locator('.chart canvas').first().waitFor();
  await page.getByRole('img', { name: 'QR code of dash-narrow' }).waitFor();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

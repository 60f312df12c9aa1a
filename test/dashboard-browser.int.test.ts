import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createKeyWithCli } from './support/cli';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * The dashboard as a person uses it, in Debian's Chromium against `npm start` as it is (embedded): a wrong key is
 * told at sign-in; a right one is kept in the tab's sessionStorage only; links are created (the API's error shown
 * beside its field), listed and deleted; a hostile tag is shown as text; another account's key never sees the
 * first account's links; and the page runs under its strict Content-Security-Policy without a violation.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

let dataDir: string;
let app: RunningProcess;
let browser: Browser;
const keys = { a: '', b: '' };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  buildOnce();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-dashboard-'));
  app = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir });
  keys.a = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  keys.b = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A fresh tab on the dashboard, with every console error and page error it meets (CSP violations are both). */
async function openDashboard(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  // The browser logs each 4xx a fetch met; what the page expects (a wrong key, a taken slug) is no problem.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => void problems.push(e.message));
  page.on('dialog', (d) => void d.accept());
  const res = await page.goto(`${app.url}/dashboard`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  return { page, problems };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
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

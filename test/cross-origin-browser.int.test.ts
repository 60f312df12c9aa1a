import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createKeyWithCli } from './support/cli';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * CORS as a browser applies it: Debian's Chromium opens a page served on one
 * port and calls the API of `npm start` (embedded, on another port, so another
 * origin) with fetch. The page of an allowed origin creates a link and reads
 * the headers the API exposes; a page of another origin is refused by the browser.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

let dataDir: string;
let app: RunningProcess;
let browser: Browser;
let allowedPage: Server;
let otherPage: Server;
let key: string;

/** A page server on a port of its own: its origin is `http://127.0.0.1:<port>`. */
async function pageServer(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  buildOnce();
  allowedPage = await pageServer();
  otherPage = await pageServer();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-cors-'));
  app = await startProcess('deploy/standalone/dist/main.js', {
    DATA_DIR: dataDir,
    CORS_ORIGINS: originOf(allowedPage),
  });
  key = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  expect(await app?.stop()).toBe(0);
  allowedPage?.close();
  otherPage?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs a create by fetch from a page of `origin`: what the page can read of the answer, or the browser's error. */
async function createFrom(origin: string) {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ api, key }) => {
        try {
          const res = await fetch(`${api}/api/v1/links`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${key}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': `browser-${Math.random()}`,
            },
            body: JSON.stringify({ url: 'https://example.com/from-a-page' }),
          });
          return {
            status: res.status,
            location: res.headers.get('location'),
            remaining: res.headers.get('ratelimit-remaining'),
            body: (await res.json()) as { destinationUrl?: string },
          };
        } catch (e) {
          return { error: String(e) };
        }
      },
      { api: app.url, key },
    );
  } finally {
    await page.close();
  }
}

it('lets a page of an allowed origin call the API and read the headers it exposes', async () => {
  const answer = await createFrom(originOf(allowedPage));
  expect(answer).toMatchObject({ status: 201, body: { destinationUrl: 'https://example.com/from-a-page' } });
  expect('location' in answer && answer.location).toMatch(/^http:\/\/localhost:\d+\/[a-z0-9-]+$/);
  expect('remaining' in answer && Number(answer.remaining)).toBeGreaterThan(0);
}, 30_000);

it('refuses a page of another origin: the browser hides the answer', async () => {
  expect(await createFrom(originOf(otherPage))).toEqual({ error: 'TypeError: Failed to fetch' });
}, 30_000);

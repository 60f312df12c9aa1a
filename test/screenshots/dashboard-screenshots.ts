/**
 * `npm run screenshots [-- --base-url <url> --api-key <key>] [--out <dir>]`
 *
 * Pictures of every dashboard page (test/support/dashboard-pages.ts), desktop and phone wide, for the docs. Alone it
 * starts `npm start` as the tests do (embedded, in a scratch data folder, nothing else needed), makes a key, seeds
 * links and clicks, and writes the PNGs; with `--base-url` and `--api-key` it uses a running service instead, and
 * seeds the links into that key's account (an existing slug is left as it is).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runCommand, UsageError } from '@shortlink/config';
import { startProcess, type RunningProcess } from '@shortlink/testing';
import { CHROMIUM, launchChromium } from '../support/chromium';
import { openPage, PAGES, seedLinks, signInContext, waitForClicks } from '../support/dashboard-pages';

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 360, height: 740 },
] as const;
/** npm runs every script at the repository's root. */
const ROOT = process.cwd();

const HELP = `usage: npm run screenshots [-- --base-url <url> --api-key <key>] [--out <dir>]

Writes a PNG of every dashboard page, 1280 and 360 px wide, into docs/images/dashboard/
(or --out). Needs Debian's Chromium at ${CHROMIUM}.

  --base-url <url>   a running service (npm start), e.g. http://localhost:3000; without it
                     the script starts its own in a scratch data folder and stops it after
  --api-key <key>    a key of that service (npm run apikey -- create --name me --plan pro);
                     a few links and clicks are added to its account
  --out <dir>        where the PNGs go`;

const command = {
  name: 'npm run screenshots --',
  help: HELP,
  options: {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    out: { type: 'string', default: join('docs', 'images', 'dashboard') },
  },
} as const;

runCommand(command, async ({ values }) => {
  const given = values['base-url'];
  if ((given === undefined) !== (values['api-key'] === undefined)) {
    throw new UsageError('--base-url and --api-key go together');
  }
  const out = resolve(ROOT, values.out);
  await mkdir(out, { recursive: true });

  let app: RunningProcess | undefined;
  let dataDir: string | undefined;
  let base = given?.replace(/\/+$/, '') ?? '';
  let key = values['api-key'] ?? '';
  const browser = await launchChromium();
  try {
    if (!given) {
      dataDir = await mkdtemp(join(tmpdir(), 'shortlink-screenshots-'));
      app = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir }, { root: ROOT });
      base = app.url;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(ROOT, 'libs/accounts/dist/apikey-cli.js'), 'create', '--name', 'screenshots', '--plan', 'pro'],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } },
      );
      key = stdout.trim().split('\n').at(-1) ?? '';
    }
    await seedLinks(base, key);
    await waitForClicks(base, key, 42);
    for (const page of PAGES) {
      for (const size of SIZES) {
        const context = await browser.newContext({
          viewport: { width: size.width, height: size.height },
          colorScheme: 'light',
        });
        if (page.signedIn) await signInContext(context, key);
        const tab = await context.newPage();
        await openPage(tab, base, page);
        const file = join(out, `${page.name}-${size.name}.png`);
        await tab.screenshot({ path: file, fullPage: true });
        process.stderr.write(`[screenshots] ${file}\n`);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await app?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
});

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPICS } from '@shortlink/event-log';
import { eventually } from '@shortlink/testing';
import { createKeyWithCli } from './support/cli';
import { buildOnce, ROOT, startProcess, type RunningProcess } from './support/processes';

/**
 * The embedded mode keeps what it acknowledged: a 201'd link, and every click
 * that reached the event log, survive a SIGKILL, and after the restart each
 * click is counted exactly once (the projector's exactly-once scheme, on the
 * embedded log and chdb).
 */
const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let dataDir: string;
/**
 * TMPDIR of every process this file starts: the registry of running embedded
 * servers lives there, so the servers a command names are this file's own and
 * an `npm start` elsewhere on the machine is neither seen nor needed.
 */
let machine: string;
let key: string;
let app: RunningProcess | undefined;
/** Links created with a 201 in this data directory, by every test of the file. */
let linksCreated = 0;

// A new free port at each start (app.url follows it): the last one can be taken by the time a restart binds.
const start = async () => {
  app = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir, TMPDIR: machine });
  return app;
};

async function createLinks(count: number, prefix: string): Promise<string[]> {
  const slugs: string[] = [];
  for (let i = 0; i < count; i++) {
    const slug = `${prefix}-${i}`;
    const res = await fetch(`${app!.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/${slug}`, customSlug: slug }),
    });
    expect(res.status).toBe(201);
    linksCreated++;
    slugs.push(slug);
  }
  return slugs;
}

/** Browser visits, a few at a time, until `stop()`; returns how many were answered with a 302. */
function clickAway(slugs: string[]) {
  let answered = 0;
  let running = true;
  const workers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = w; running; i += 4) {
      try {
        const res = await fetch(`${app!.url}/${slugs[i % slugs.length]}`, {
          redirect: 'manual',
          headers: { 'user-agent': CHROME },
        });
        if (res.status === 302) answered++;
      } catch {
        return; // the process was killed under us
      }
    }
  });
  return {
    answered: () => answered,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/**
 * Clicks durably in the log: the clicks of the complete lines (records) of the
 * clicks topic's files, a torn tail not acknowledged. A record holds several
 * clicks and says how many in its `event-count` header (shortlink.clicks.v2).
 */
async function clicksInLog(): Promise<number> {
  const dir = join(dataDir, 'log', 'topics', encodeURIComponent(TOPICS.clicks));
  let count = 0;
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.log'))) {
    const lines = (await readFile(join(dir, file), 'utf8')).split('\n');
    lines.pop(); // after the last newline: empty, or a torn write
    for (const line of lines)
      count += Number((JSON.parse(line) as { h?: Record<string, string> }).h?.['event-count'] ?? 1);
  }
  return count;
}

async function totalClicks(slugs: string[]): Promise<number> {
  let total = 0;
  for (const slug of slugs) {
    const res = await fetch(`${app!.url}/api/v1/links/${slug}/analytics?range=all`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    total += ((await res.json()) as { totalClicks: number }).totalClicks;
  }
  return total;
}

beforeAll(async () => {
  buildOnce();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-durability-'));
  machine = await mkdtemp(join(tmpdir(), 'shortlink-tmp-'));
  await start();
  key = await createKeyWithCli({ DATA_DIR: dataDir, TMPDIR: machine }, 'pro');
}, 90_000);

afterAll(async () => {
  await app?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(machine, { recursive: true, force: true });
});

it('loses nothing acknowledged and counts every click once after a SIGKILL mid-stream', async () => {
  const slugs = await createLinks(10, 'kill');
  const clicks = clickAway(slugs);
  await eventually(async () => ((await totalClicks(slugs)) > 200 ? true : undefined), 30_000);
  await app!.kill(); // mid-stream: clicks queued, appended, projected and in between
  await clicks.stop();
  const logged = await clicksInLog();
  expect(logged).toBeGreaterThan(200);

  await start();
  for (const slug of slugs) {
    const res = await fetch(`${app!.url}/${slug}`, { redirect: 'manual' }); // curl-like: not counted
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`https://example.com/${slug}`);
  }
  // Every click in the log, once: none lost by the kill, none counted twice by the replay.
  await eventually(async () => ((await totalClicks(slugs)) === logged ? true : undefined), 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  expect(await totalClicks(slugs)).toBe(logged);
}, 120_000);

it('counts every answered click after a clean stop', async () => {
  const slugs = await createLinks(5, 'stop');
  const clicks = clickAway(slugs);
  await new Promise((r) => setTimeout(r, 1500));
  await clicks.stop();
  const answered = clicks.answered();
  expect(answered).toBeGreaterThan(50);
  expect(await app!.stop()).toBe(0); // flushes the click queue to the log before exiting
  await start();
  await eventually(async () => ((await totalClicks(slugs)) === answered ? true : undefined), 30_000);
  expect(await totalClicks(slugs)).toBe(answered);
}, 120_000);

it('rebuilds the links projection from the embedded log (npm run rebuild), and refuses while the server runs', async () => {
  const rebuild = () =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'services/projector/dist/rebuild-cli.js')],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', TMPDIR: machine, DATA_DIR: dataDir } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
  await createLinks(3, 'rebuild');
  const refused = await rebuild();
  expect(refused.code).not.toBe(0);
  expect(refused.output).toMatch(/is in use by another shortlink process/);

  expect(await app!.stop()).toBe(0);
  const rebuilt = await rebuild();
  // Events applied: every LinkCreated, and the preview outcomes the worker appended to the same topic.
  expect(rebuilt).toMatchObject({ code: 0, output: expect.stringMatching(/, 0 skipped, \d+ links\.$/m) });
  expect(Number(/(\d+) links\./.exec(rebuilt.output)![1])).toBe(linksCreated);
  // With no server running, `npm run apikey` opens the embedded store itself.
  const offlineKey = await createKeyWithCli({ DATA_DIR: dataDir, TMPDIR: machine }, 'free');
  await start();
  const res = await fetch(`${app!.url}/rebuild-2`, { redirect: 'manual' });
  expect(res.headers.get('location')).toBe('https://example.com/rebuild-2');
  const withOfflineKey = await fetch(`${app!.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${offlineKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/offline' }),
  });
  expect(withOfflineKey.status).toBe(201);
}, 120_000);

it('npm run apikey pointed at a DATA_DIR with no server and no data says so, and names the running server', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'shortlink-empty-'));
  const apikey = () =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'libs/accounts/dist/apikey-cli.js'), 'create', '--name', 'lost'],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', TMPDIR: machine, DATA_DIR: empty } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
  try {
    await app?.stop(); // whatever an earlier test left running: this test starts its own
    await start();
    const whileRunning = await apikey();
    expect(whileRunning.code).not.toBe(0);
    expect(whileRunning.output).toContain(`No shortlink server is running with DATA_DIR=${empty}`);
    expect(whileRunning.output).toContain(`DATA_DIR=${dataDir}  (pid ${app!.pid})`);
    expect(await readdir(empty)).toEqual([]); // no second, empty store
    expect(await app!.stop()).toBe(0);
    const nothingRunning = await apikey();
    expect(nothingRunning.code).not.toBe(0);
    expect(nothingRunning.output).toMatch(/Start the server first \(npm start\)/);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}, 60_000);

it('refuses a mix of server settings and embedded, naming what is missing', async () => {
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'deploy/standalone/dist/main.js')],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          TMPDIR: machine,
          DATA_DIR: dataDir,
          DATABASE_URL: 'postgres://postgres@127.0.0.1/x',
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
  expect(result.code).not.toBe(0);
  expect(result.output).toMatch(/DATABASE_URL is set but KAFKA_BROKERS and CLICKHOUSE_URL are not/);
});

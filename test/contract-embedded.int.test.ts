import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeApiContract, type ContractTarget } from './contract/api-contract';
import { describeConcurrentContract } from './contract/concurrent-contract';
import { createKeyWithCli } from './support/cli';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/** `npm start` with no server configured: PGlite, chdb and the embedded event log under DATA_DIR. */
let dataDir: string;
let app: RunningProcess;

beforeAll(async () => {
  buildOnce();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-embedded-'));
  app = await startProcess('deploy/standalone/dist/main.js', {
    DATA_DIR: dataDir,
    PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true',
  });
}, 90_000);

afterAll(async () => {
  expect(await app?.stop()).toBe(0);
  await rm(dataDir, { recursive: true, force: true });
});

const target = (): ContractTarget => ({
  url: app.url,
  // Through the running server's own Postgres socket: the server keeps running.
  issueKey: (plan) => createKeyWithCli({ DATA_DIR: dataDir }, plan),
});

describeApiContract('embedded', target);
describeConcurrentContract('embedded', target);

it('hands out short URLs that lead to the link when PUBLIC_BASE_URL is unset: this process on its own port', async () => {
  const key = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
  const created = await fetch(`${app.url}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/own-port' }),
  });
  expect(created.status).toBe(201);
  const { shortUrl, slug } = (await created.json()) as { shortUrl: string; slug: string };
  expect(shortUrl).toBe(`http://localhost:${new URL(app.url).port}/${slug}`);
  // The machine may resolve localhost to ::1 first, where this process does not listen: the port is what is checked.
  const visited = await fetch(`${app.url}${new URL(shortUrl).pathname}`, { redirect: 'manual' });
  expect(visited.status).toBe(302);
  expect(visited.headers.get('location')).toBe('https://example.com/own-port');
});

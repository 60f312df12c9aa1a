import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOnce, ROOT, startProcess } from './support/processes';

/**
 * A stop signal while a process starts (a rollout that changes its mind, a
 * Ctrl-C during a slow first start) closes what the start opened and exits 0,
 * as a signal while serving does, instead of Node's default death. Shown on
 * the embedded mode, whose start is long (its stores open first) and leaves a
 * trace when killed: `DATA_DIR/embedded.json`, the claim on the directory.
 */
let dataDir: string;

beforeAll(async () => {
  buildOnce();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-stop-while-starting-'));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

it('closes and exits 0 when signalled while starting, and the next start serves', async () => {
  // Given the embedded mode starting, its stores open (it says so) and its modules not yet started
  const child = spawn(process.execPath, [join(ROOT, 'deploy/standalone/dist/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data.toString();
      if (output.includes('embedded mode:')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`exited before its stores were open:\n${output}`)));
  });

  // When it gets SIGTERM
  child.kill('SIGTERM');

  // Then it closes what it opened and exits 0, without ever serving
  expect(await exited).toEqual({ code: 0, signal: null });
  expect(output).toContain('stop requested while starting');
  expect(output).toContain('"serving":false');
  expect(output).not.toContain('"msg":"serving"');
  // Its claim on DATA_DIR is given back, as on any clean stop
  expect(await readdir(dataDir)).not.toContain('embedded.json');

  // And the next start serves
  const again = await startProcess('deploy/standalone/dist/main.js', { DATA_DIR: dataDir });
  expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
  expect(await again.stop()).toBe(0);
}, 90_000);

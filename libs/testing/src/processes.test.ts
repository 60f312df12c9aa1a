import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from './processes';

/**
 * An entry point that answers /healthz on PORT, except on its first `failFirst`
 * starts, where it exits as a process that could not listen does.
 */
const ENTRY = `
const { existsSync, writeFileSync, readFileSync } = require('node:fs');
const { createServer } = require('node:http');
const tries = existsSync('tries') ? Number(readFileSync('tries', 'utf8')) + 1 : 1;
writeFileSync('tries', String(tries));
if (tries <= Number(process.env.FAIL_FIRST)) {
  console.error('Error: listen EADDRINUSE: address already in use 127.0.0.1:' + process.env.PORT);
  process.exit(1);
}
if (process.env.FAIL_FIRST === 'always') process.exit(2);
createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('startProcess', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'start-process-'));
    await writeFile(join(root, 'entry.js'), ENTRY);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('starts the process again on another port when its port was taken before it could listen', async () => {
    const running = await startProcess('entry.js', { FAIL_FIRST: '2' }, { root });
    try {
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('gives up after three ports', async () => {
    await expect(startProcess('entry.js', { FAIL_FIRST: '3' }, { root })).rejects.toThrow(/EADDRINUSE/);
  });

  it('reports a process that exits at once without waiting out the deadline', async () => {
    const started = Date.now();
    await expect(startProcess('entry.js', { FAIL_FIRST: 'always' }, { root })).rejects.toThrow(
      /exited before it was healthy/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTP_LIMITS } from '@shortlink/http';
import { freePort } from '@shortlink/testing';
import { renderEntryPoint } from './entry-point';

/**
 * The fleet's HAProxy configuration, run by the real HAProxy in front of an
 * instance that keeps connections as the services do (its own keep-alive
 * hint, 72 s): what a client keeping connections by the hint is told, against
 * when the entry point really closes an idle connection.
 */
const ROOT = join(__dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let instance: Server;
let haproxy: ChildProcess;
let entryPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'entry-point-'));
  instance = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end('{}'));
  instance.keepAliveTimeout = HTTP_LIMITS.keepAliveTimeoutMs;
  const instancePort = await freePort();
  await new Promise<void>((resolve) => instance.listen(instancePort, '127.0.0.1', resolve));
  entryPort = await freePort();
  const server = `server one 127.0.0.1:${instancePort} check`;
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    renderEntryPoint({
      template: join(ROOT, 'deploy', 'fleet', 'haproxy.cfg.template'),
      bind: `127.0.0.1:${entryPort}`,
      errorsDir: join(ROOT, 'deploy', 'fleet', 'errors'),
      servers: { redirectors: [server], writeApis: [server], analytics: [server], apiDocs: [server] },
    }),
  );
  haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${entryPort}/healthz`).catch(() => null);
    if (res?.status === 200) break;
    await sleep(100);
  }
});

afterAll(async () => {
  haproxy.kill('SIGKILL');
  instance.closeAllConnections();
  await new Promise((resolve) => instance.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** One request on a connection of its own; resolves with the answer's head and when the entry point closed it. */
function requestThenIdle(): Promise<{ head: string; closedAfterMs: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(entryPort, '127.0.0.1', () =>
      socket.write('GET /some-slug HTTP/1.1\r\nHost: entry\r\nUser-Agent: test\r\n\r\n'),
    );
    let head = '';
    let answeredAt = 0;
    const closed = new Promise<number>((done) => socket.once('end', () => done(performance.now() - answeredAt)));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      if (answeredAt !== 0) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      answeredAt = performance.now();
      resolve({ head: head.split('\r\n\r\n')[0]!, closedAfterMs: closed.finally(() => socket.destroy()) });
    });
  });
}

it('tells clients a keep-alive time shorter than the one it keeps an idle connection, with room for a late timer', async () => {
  const { head, closedAfterMs } = await requestThenIdle();
  expect(head).toMatch(/^HTTP\/1\.1 404/);
  const hints = head.split('\r\n').filter((line) => /^keep-alive:/i.test(line));
  // The instance's own hint (timeout=72) does not reach the client: it is not the entry point's.
  expect(hints).toEqual([expect.stringMatching(/^keep-alive: timeout=\d+$/i)]);
  const advertisedMs = Number(/timeout=(\d+)/.exec(hints[0]!)![1]) * 1000;
  // A client drops an idle connection at the hint (undici: a second before); it must do so well
  // before the entry point closes it, or a request sent as it closes is lost with the connection.
  expect(await closedAfterMs).toBeGreaterThanOrEqual(advertisedMs + 3000);
}, 90_000);

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
 * The fleet's HAProxy configuration, run by the real HAProxy in front of
 * instances that answer as redirectors do: which answers it sends on to
 * another instance, and what a client keeping connections by the keep-alive
 * hint is told against when the entry point really closes an idle connection.
 */
const ROOT = join(__dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let instances: Server[];
let haproxy: ChildProcess;
let entryPort: number;
/** Redirects each instance was asked for, by instance. */
const asked = { holding: 0, away: 0 };
/** Creates an instance holds unanswered until the test lets them go. */
const heldCreates: (() => void)[] = [];
/** Redirects of `/busy` an instance holds unanswered until the test lets them go. */
const heldRedirects: (() => void)[] = [];

const LOOKUP_FAILED =
  '{"error":"The link cannot be looked up right now. Try again in a moment.","code":"temporarily_unavailable"}';

/**
 * Two redirectors as Postgres going away leaves them: one holds `/held` in
 * memory, the other holds nothing and can look nothing up. Neither holds any
 * other slug. Both keep connections as the services do (their own keep-alive
 * hint, 72 s).
 */
function redirector(holds: boolean): Server {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') return res.writeHead(200).end('{}');
    if (req.url === '/busy') {
      heldRedirects.push(() => res.writeHead(302, { location: 'https://example.com/busy' }).end());
      return;
    }
    if (req.url === '/api/v1/links' && req.method === 'POST') {
      heldCreates.push(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
      return;
    }
    asked[holds ? 'holding' : 'away']++;
    if (holds && req.url === '/held') return res.writeHead(302, { location: 'https://example.com/held' }).end();
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(LOOKUP_FAILED);
  });
  server.keepAliveTimeout = HTTP_LIMITS.keepAliveTimeoutMs;
  return server;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'entry-point-'));
  instances = [redirector(true), redirector(false)];
  const servers = [];
  for (const [i, instance] of instances.entries()) {
    const port = await freePort();
    await new Promise<void>((resolve) => instance.listen(port, '127.0.0.1', resolve));
    servers.push(`server r${i} 127.0.0.1:${port} check`);
  }
  entryPort = await freePort();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    renderEntryPoint({
      template: join(ROOT, 'deploy', 'fleet', 'haproxy.cfg.template'),
      bind: `127.0.0.1:${entryPort}`,
      errorsDir: join(ROOT, 'deploy', 'fleet', 'errors'),
      servers: { redirectors: servers, writeApis: servers, analytics: servers, apiDocs: servers },
    }),
  );
  haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${entryPort}/held`, { redirect: 'manual' }).catch(() => null);
    if (res?.status === 302) break;
    await sleep(100);
  }
});

afterAll(async () => {
  heldCreates.splice(0).forEach((answer) => answer());
  heldRedirects.splice(0).forEach((answer) => answer());
  haproxy.kill('SIGKILL');
  for (const instance of instances) {
    instance.closeAllConnections();
    await new Promise((resolve) => instance.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

it('sends a redirect an instance could not look up (503) to another, which answers it from memory', async () => {
  asked.holding = asked.away = 0;
  const answers = [];
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`http://127.0.0.1:${entryPort}/held`, { redirect: 'manual' });
    await res.arrayBuffer();
    answers.push([res.status, res.headers.get('location')]);
  }
  expect(answers).toEqual(Array.from({ length: 10 }, () => [302, 'https://example.com/held']));
  // Round robin put about half of them on the instance that could not answer first.
  expect(asked.away).toBeGreaterThanOrEqual(4);
});

it('answers the instance’s own 503 when no instance can look the link up', async () => {
  const res = await fetch(`http://127.0.0.1:${entryPort}/nobody-holds-it`, { redirect: 'manual' });
  expect([res.status, res.headers.get('retry-after'), await res.text()]).toEqual([503, '1', LOOKUP_FAILED]);
});

it('sheds creates beyond what its instances hold at once: 503 with Retry-After within 1 s, none sent on', async () => {
  // Given two write API instances each holding 64 creates, their most at once
  const create = () =>
    fetch(`http://127.0.0.1:${entryPort}/api/v1/links`, { method: 'POST', body: '{}' }).then(async (res) => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: await res.text(),
      at: performance.now(),
    }));
  const held = Array.from({ length: 128 }, create);
  for (let i = 0; i < 100 && heldCreates.length < 128; i++) await sleep(50);
  expect(heldCreates).toHaveLength(128);

  // When five more come
  const sent = performance.now();
  const more = await Promise.all(Array.from({ length: 5 }, create));

  // Then each waits in the entry point's queue at most 1 s, and is refused having reached no instance
  expect(more.map((r) => [r.status, r.retryAfter])).toEqual(Array.from({ length: 5 }, () => [503, '2']));
  expect(JSON.parse(more[0]!.body)).toMatchObject({ code: 'temporarily_unavailable', detail: /reached none/ });
  for (const r of more) expect(r.at - sent).toBeLessThan(3000);
  expect(heldCreates).toHaveLength(128);
  heldCreates.splice(0).forEach((answer) => answer());
  expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array.from({ length: 128 }, () => 201));
});

it('refuses the API at once while the redirectors hold more than 256 redirects, and serves it again after', async () => {
  const get = (path: string) =>
    fetch(`http://127.0.0.1:${entryPort}${path}`, { redirect: 'manual' }).then(async (res) => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: await res.text(),
    }));
  // Given the redirectors holding 257 redirects unanswered (behind, or waiting on Postgres)
  const held = Array.from({ length: 257 }, () => get('/busy'));
  for (let i = 0; i < 100 && heldRedirects.length < 257; i++) await sleep(50);
  expect(heldRedirects).toHaveLength(257);

  // When an API request comes, it is refused at once, having reached no instance
  const asked = performance.now();
  const api = await get('/api/v1/account');
  expect([api.status, api.retryAfter]).toEqual([503, '2']);
  expect(JSON.parse(api.body)).toMatchObject({ code: 'overloaded', detail: /reached no instance/ });
  expect(performance.now() - asked).toBeLessThan(500);
  // And a redirect is still taken
  const another = get('/busy');
  for (let i = 0; i < 100 && heldRedirects.length < 258; i++) await sleep(20);
  expect(heldRedirects).toHaveLength(258);

  // Then, once they are answered, the API reaches an instance again (the stub's own 503 for a path it does not hold)
  heldRedirects.splice(0).forEach((answer) => answer());
  expect([...(await Promise.all(held)), await another].every((r) => r.status === 302)).toBe(true);
  expect(JSON.parse((await get('/api/v1/account')).body)).toMatchObject({ code: 'temporarily_unavailable' });
});

/** One request on a connection of its own; resolves with the answer's head and when the entry point closed it. */
function requestThenIdle(): Promise<{ head: string; closedAfterMs: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(entryPort, '127.0.0.1', () =>
      socket.write('GET /held HTTP/1.1\r\nHost: entry\r\nUser-Agent: test\r\n\r\n'),
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
  expect(head).toMatch(/^HTTP\/1\.1 302/);
  const hints = head.split('\r\n').filter((line) => /^keep-alive:/i.test(line));
  // The instance's own hint (timeout=72) does not reach the client: it is not the entry point's.
  expect(hints).toEqual([expect.stringMatching(/^keep-alive: timeout=\d+$/i)]);
  const advertisedMs = Number(/timeout=(\d+)/.exec(hints[0]!)![1]) * 1000;
  // A client drops an idle connection at the hint (undici: a second before); it must do so well
  // before the entry point closes it, or a request sent as it closes is lost with the connection.
  expect(await closedAfterMs).toBeGreaterThanOrEqual(advertisedMs + 3000);
}, 90_000);

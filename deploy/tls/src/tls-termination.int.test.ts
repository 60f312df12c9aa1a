import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';

/**
 * The TLS examples of docs/tls.md (deploy/tls) run as written by Debian's
 * HAProxy and nginx (`.ci/run` installs both), in front of a stand-in entry
 * point that echoes what reached it: each branded domain gets its own
 * certificate by SNI, and the request arrives with the visitor's Host and the
 * forwarded headers the services trust.
 */
const TLS = join(__dirname, '..');
const OWN_HOST = 'sho.rt.test';
const BRANDED = 'go.acme.test';

interface Seen {
  host: string;
  proto: string;
  forwardedFor: string;
  path: string;
}
interface Answer {
  status: number;
  body: string;
  /** The certificate the proxy sent: its subject's common name. */
  certificate?: string;
}

let dir: string;
let entry: Server;
let acme: Server;
let entryPort: number;
let acmePort: number;
const proxies: ChildProcess[] = [];

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function accepting(port: number, what: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}: ${what()}`);
}

/** A self-signed certificate for `host`, with its key, in one PEM file as both proxies read them. */
function certificate(file: string, host: string): void {
  const [cert, key] = [`${file}.crt`, `${file}.key`];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`, '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' }); // prettier-ignore
  writeFileSync(file, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'));
  rmSync(cert);
  rmSync(key);
  chmodSync(file, 0o644); // nginx's workers read it at the handshake, as their own user
}

function ask(port: number, options: { tls: boolean; host: string; sni?: string; path?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const common = { host: '127.0.0.1', port, path: options.path ?? '/abc', headers: { host: options.host } };
    const done = (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const socket = res.socket as TLSSocket;
        const name = options.tls ? socket.getPeerCertificate().subject?.CN : undefined;
        const certificate = Array.isArray(name) ? name.join(',') : name;
        resolve({ status: res.statusCode ?? 0, body, ...(certificate ? { certificate } : {}) });
      });
    };
    const req = options.tls
      ? httpsRequest({ ...common, servername: options.sni, rejectUnauthorized: false, agent: false }, done)
      : httpRequest({ ...common, agent: false }, done);
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shortlink-tls-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'tls', 'domains'), { recursive: true, mode: 0o755 });
  certificate(join(dir, 'tls', 'default.pem'), OWN_HOST);
  certificate(join(dir, 'tls', 'domains', `${BRANDED}.pem`), BRANDED);
  mkdirSync(join(dir, 'acme', '.well-known', 'acme-challenge'), { recursive: true, mode: 0o755 });
  writeFileSync(join(dir, 'acme', '.well-known', 'acme-challenge', 'token-1'), 'token-1.thumbprint', { mode: 0o644 });
  entry = createServer((req, res) => {
    const seen: Seen = {
      host: req.headers.host ?? '',
      proto: String(req.headers['x-forwarded-proto'] ?? ''),
      forwardedFor: String(req.headers['x-forwarded-for'] ?? ''),
      path: req.url ?? '',
    };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(seen));
  });
  acme = createServer((req, res) => res.end(`acme responder: ${req.url}`));
  [entryPort, acmePort] = [await listening(entry), await listening(acme)];
}, 30_000);

afterAll(async () => {
  for (const proxy of proxies) proxy.kill('SIGTERM'); // nginx's master stops its workers on TERM, not on KILL
  await Promise.all([entry, acme].map((s) => new Promise((r) => (s?.listening ? s.close(r) : r(undefined)))));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Proxy {
  http: number;
  https: number;
  log: () => string;
}

/** deploy/tls/haproxy.cfg as it is, its settings in its environment. */
async function startHaproxy(): Promise<Proxy> {
  const [http, https] = [await freePort(), await freePort()];
  let log = '';
  const proxy = spawn('haproxy', ['-db', '-f', join(TLS, 'haproxy.cfg')], {
    env: {
      ...process.env,
      HTTP_BIND: `127.0.0.1:${http}`,
      HTTPS_BIND: `127.0.0.1:${https}`,
      TLS_DIR: join(dir, 'tls'),
      SHORTLINK_ENTRY: `127.0.0.1:${entryPort}`,
      ACME_HTTP01: `127.0.0.1:${acmePort}`,
    },
  });
  proxy.on('error', (e) => (log += `haproxy: ${e.message} (apt-get install haproxy)`));
  proxy.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proxy.stderr.on('data', (d: Buffer) => (log += d.toString()));
  proxies.push(proxy);
  await accepting(https, () => log);
  return { http, https, log: () => log };
}

/** deploy/tls/nginx.conf with the lines its header says to change, changed; each must be found. */
async function startNginx(): Promise<Proxy> {
  const [http, https] = [await freePort(), await freePort()];
  let config = readFileSync(join(TLS, 'nginx.conf'), 'utf8');
  const change = (from: string, to: string) => {
    if (!config.includes(from)) throw new Error(`deploy/tls/nginx.conf no longer holds ${from}`);
    config = config.split(from).join(to);
  };
  change('sho.rt.example', OWN_HOST);
  change('/etc/shortlink/tls', join(dir, 'tls'));
  change('server 127.0.0.1:3000', `server 127.0.0.1:${entryPort}`);
  change('/var/lib/shortlink/acme', join(dir, 'acme'));
  change('listen 80 ', `listen 127.0.0.1:${http} `);
  change('listen 443 ', `listen 127.0.0.1:${https} `);
  change('pid /run/shortlink-tls.pid', `pid ${join(dir, 'nginx.pid')}`);
  writeFileSync(join(dir, 'nginx.conf'), config);
  let log = '';
  const proxy = spawn('nginx', [
    '-p',
    dir,
    '-c',
    join(dir, 'nginx.conf'),
    '-e',
    join(dir, 'nginx-error.log'),
    '-g',
    'daemon off;',
  ]);
  proxy.on('error', (e) => (log += `nginx: ${e.message} (apt-get install nginx)`));
  proxy.stderr.on('data', (d: Buffer) => (log += d.toString()));
  proxies.push(proxy);
  await accepting(https, () => log);
  return { http, https, log: () => log };
}

describe.each([
  ['HAProxy (deploy/tls/haproxy.cfg)', startHaproxy, 'acme responder: /.well-known/acme-challenge/token-1'],
  ['nginx (deploy/tls/nginx.conf)', startNginx, 'token-1.thumbprint'],
] as const)('%s', (_name, start, challengeAnswer) => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await start();
  }, 30_000);

  it("sends a branded domain its own certificate, and passes the visit on with the visitor's Host", async () => {
    const answer = await ask(proxy.https, { tls: true, host: BRANDED, sni: BRANDED, path: '/launch?utm_source=x' });
    expect(answer.certificate).toBe(BRANDED);
    const seen = JSON.parse(answer.body) as Seen;
    expect(seen).toEqual({ host: BRANDED, proto: 'https', forwardedFor: '127.0.0.1', path: '/launch?utm_source=x' });
  });

  it("sends the installation's own certificate to its own host and to a client that names none", async () => {
    const own = await ask(proxy.https, { tls: true, host: OWN_HOST, sni: OWN_HOST });
    expect(own.certificate).toBe(OWN_HOST);
    expect((JSON.parse(own.body) as Seen).host).toBe(OWN_HOST);
    const unnamed = await ask(proxy.https, { tls: true, host: OWN_HOST }); // an IP address: no SNI is sent
    expect(unnamed.certificate).toBe(OWN_HOST);
  });

  it('answers plain HTTP in one round trip, Host and all, and hands ACME challenges to the issuer', async () => {
    const plain = await ask(proxy.http, { tls: false, host: BRANDED });
    expect(JSON.parse(plain.body)).toEqual({ host: BRANDED, proto: 'http', forwardedFor: '127.0.0.1', path: '/abc' });
    const challenge = await ask(proxy.http, { tls: false, host: BRANDED, path: '/.well-known/acme-challenge/token-1' });
    expect([challenge.status, challenge.body]).toEqual([200, challengeAnswer]);
  });
});

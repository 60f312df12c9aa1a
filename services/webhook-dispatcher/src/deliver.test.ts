import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicNetwork, startDnsTestServer, type DnsTestServer } from '@shortlink/public-network';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@shortlink/testing';
import { createDeliverer, DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './deliver';
import { signMessage } from './sign-message';

/** A receiver whose answer each test sets; it keeps what it was sent, and what its answers cost it. */
interface Receiver {
  url: string;
  received: { path: string; headers: http.IncomingHttpHeaders; body: string }[];
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: (_req, res) => res.writeHead(204).end(),
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body });
      receiver.answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const payload = JSON.stringify({ type: 'link.created', timestamp: '2026-12-01T10:00:00.000Z', data: { slug: 'abc' } });
const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, allowHttp: true, userAgent: 'ShortLinkWebhooks/1.0' };
const local = createPublicNetwork({ allowPrivateNetworks: true });

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const request = (url = `${receiver.url}/hook`) => ({
  url,
  headers: signMessage([secret], 'msg_test', payload, new Date()),
  payload,
});

describe('delivering one message', () => {
  it('POSTs the body with headers that the standardwebhooks library verifies', async () => {
    const result = await createDeliverer(policy, local)(request());
    expect(result).toMatchObject({ kind: 'answered', status: 204, answer: null });
    const [got] = receiver.received;
    expect(got?.path).toBe('/hook');
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['user-agent']).toBe('ShortLinkWebhooks/1.0');
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(payload));
  });

  it('given a redirect, does not follow it: the 3xx is the answer', async () => {
    receiver.answer = (req, res) =>
      req.url === '/hook' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end();
    const result = await createDeliverer(policy, local)(request());
    expect(result).toMatchObject({ kind: 'answered', status: 302 });
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('given a 410 or a 503 with Retry-After, reports the status and the header', async () => {
    receiver.answer = (_req, res) => res.writeHead(410).end('gone');
    expect(await createDeliverer(policy, local)(request())).toMatchObject({ status: 410, answer: '"gone"' });
    receiver.answer = (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end();
    expect(await createDeliverer(policy, local)(request())).toMatchObject({ status: 503, retryAfter: '120' });
  });

  it('given an endpoint that never answers, gives up at the timeout', async () => {
    receiver.answer = () => undefined;
    const started = Date.now();
    const result = await createDeliverer({ ...policy, timeoutMs: 300 }, local)(request());
    expect(result).toMatchObject({ kind: 'failed', error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('given a status then an endless trickle, keeps the status and stops at the timeout', async () => {
    receiver.answer = (_req, res) => {
      res.writeHead(200);
      res.write('o');
    };
    const started = Date.now();
    const result = await createDeliverer({ ...policy, timeoutMs: 300 }, local)(request());
    expect(result).toMatchObject({ kind: 'answered', status: 200, answer: '"o"' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('given an endless answer, reads at most 4 KB, drops the connection and logs only an excerpt', async () => {
    // The receiver writes 64 KiB pieces for as long as its socket takes them.
    const piece = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    let closed = false;
    receiver.answer = (_req, res) => {
      res.writeHead(500);
      res.socket?.once('close', () => (closed = true));
      const more = () => {
        while (!closed && written < 200 * 1024 * 1024) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
      };
      more();
    };
    const result = await createDeliverer(policy, local)(request());
    expect(result).toMatchObject({ kind: 'answered', status: 500, answer: `"${'x'.repeat(40)}…"` });
    await eventually(() => Promise.resolve(closed || undefined), 5000, 'the receiver to see the connection closed');
    // What the socket buffers took before the close, far from the 200 MiB it would have sent
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('with keep-alive, reuses the connection after an answer read whole, never after one cut short', async () => {
    const ports: number[] = [];
    receiver.answer = (req, res) => {
      ports.push(req.socket.remotePort ?? 0);
      res.writeHead(200).end(req.headers['x-long'] ? 'x'.repeat(10_000) : 'ok');
    };
    const deliver = createDeliverer(policy, createPublicNetwork({ allowPrivateNetworks: true, keepAlive: true }));
    await deliver(request());
    await deliver(request());
    expect(new Set(ports).size).toBe(1);
    await deliver({ ...request(), headers: { ...request().headers, 'x-long': '1' } as never });
    await deliver(request());
    expect(new Set(ports).size).toBe(2);
  });

  it('escapes hostile bytes of the answer in its excerpt', async () => {
    receiver.answer = (_req, res) => res.writeHead(400).end('bad\u0000\u001b[31m\u2028end');
    const result = await createDeliverer(policy, local)(request());
    expect(result).toMatchObject({ answer: '"bad\\u0000\\u001b[31m\\u2028end"' });
  });

  it('given a connection reset or nobody listening, reports it without the endpoint’s words', async () => {
    receiver.answer = (req) => req.socket.destroy();
    expect(await createDeliverer(policy, local)(request())).toMatchObject({
      kind: 'failed',
      error: 'connection reset',
    });
    const port = new URL(receiver.url).port;
    await receiver.close();
    expect(await createDeliverer(policy, local)(request(`http://127.0.0.1:${port}/hook`))).toMatchObject({
      kind: 'failed',
      error: 'connection refused',
    });
  });

  it('refuses plain http unless allowed, and URLs with credentials', async () => {
    const strict = createDeliverer({ ...policy, allowHttp: false }, local);
    expect(await strict(request())).toMatchObject({ kind: 'failed', error: 'scheme not allowed' });
    const withCredentials = request().url.replace('http://', 'http://user:pw@');
    expect(await createDeliverer(policy, local)(request(withCredentials))).toMatchObject({
      error: 'URL with credentials',
    });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('the address an endpoint connects to', () => {
  let dns: DnsTestServer;
  beforeAll(async () => {
    // A name that resolves to the loopback: what a DNS rebinding turns a public name into.
    dns = await startDnsTestServer((name) =>
      name === 'rebound.example' ? { addresses: ['127.0.0.1'], ttlSeconds: 0 } : 'nxdomain',
    );
  });
  afterAll(() => dns.close());

  it('is refused when private, whether written as an address or resolved from a name', async () => {
    const deliver = createDeliverer(
      policy,
      createPublicNetwork({ allowPrivateNetworks: false, dns: { timeoutMs: 500, tries: 1, servers: [dns.address] } }),
    );
    const port = new URL(receiver.url).port;
    for (const url of [
      `http://127.0.0.1:${port}/hook`,
      `http://rebound.example:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://169.254.169.254:${port}/latest/meta-data`,
    ]) {
      expect(await deliver(request(url))).toMatchObject({ kind: 'failed', error: 'refused address' });
    }
    expect(await deliver(request(`http://nowhere.example:${port}/`))).toMatchObject({ error: 'host not found' });
    expect(receiver.received).toHaveLength(0);
  });
});

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import * as zlib from 'node:zlib';
import { PARSE_LIMITS } from '../parse/extract-preview';
import { fetchPreview, type PreviewOutcome } from '../preview/fetch-preview';
import { eventually } from '@shortlink/testing';
import { startDnsTestServer, type DnsTestServer } from '@shortlink/public-network';
import { createPageFetcher, DEFAULT_FETCH_POLICY, type FetchPolicy } from './fetch-page';

/** A local web server whose routes the tests define; it counts requests per path. */
interface TestSite {
  origin: string;
  hits: Map<string, number>;
  userAgents: string[];
  close(): Promise<void>;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse, hit: number) => void;

async function startSite(routes: Record<string, Route>, host = '127.0.0.1'): Promise<TestSite> {
  const hits = new Map<string, number>();
  const userAgents: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    userAgents.push(req.headers['user-agent'] ?? '');
    const route = routes[path];
    if (route) route(req, res, hit);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    hits,
    userAgents,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const html = (body: string) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
const redirect =
  (to: string, status = 302) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(status, { location: to }).end();

const USER_AGENT = 'ShortLinkPreview/1.0 (+https://sho.rt)';

function preview(url: string, policy: Partial<FetchPolicy> = {}, maxAttempts = 3): Promise<PreviewOutcome> {
  const fetchPage = createPageFetcher({
    ...DEFAULT_FETCH_POLICY,
    allowPrivateNetworks: true,
    userAgent: USER_AGENT,
    ...policy,
  });
  return fetchPreview(url, { fetchPage, retry: { maxAttempts, firstBackoffMs: 20 }, sleep });
}

describe('fetching a preview (private networks allowed, as for local testing)', () => {
  let site: TestSite;
  let other: TestSite;
  let bigPageBytesSent = 0;
  let bigPageFinished = false;
  let brotliAsked: string | undefined;
  let deepPageClosed = false;
  /** Bytes of an endless body written, by path, and whether its connection has closed. */
  const endlessBodies = new Map<string, { written: number; closed: boolean }>();
  function endless(res: http.ServerResponse, status: number, headers: http.OutgoingHttpHeaders): void {
    const path = res.req.url ?? '';
    const body = { written: 0, closed: false };
    endlessBodies.set(path, body);
    res.writeHead(status, headers);
    res.on('close', () => (body.closed = true));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const writeMore = (): void => {
      while (!body.closed && body.written < 256 * 1024 * 1024) {
        body.written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', writeMore);
      }
    };
    writeMore();
  }

  beforeAll(async () => {
    other = await startSite({
      '/landing': html('<title>Landed elsewhere</title><meta property="og:image" content="pics/hero.jpg">'),
    });
    site = await startSite({
      '/og': html(`<html><head>
        <meta property="og:title" content="Open &amp; Graph">
        <meta property="og:description" content="An OG description">
        <meta property="og:image" content="https://cdn.example.com/og.png">
        <title>ignored</title></head><body>hi</body></html>`),
      '/twitter': html(`<head>
        <meta name="twitter:title" content="Tweet title">
        <meta name="twitter:description" content="Tweet description">
        <meta name="twitter:image" content="https://cdn.example.com/t.png"></head>`),
      '/bare': html('<html><head><title>  Just a\n   title </title></head></html>'),
      '/relative/page': html('<meta property="og:image" content="../img/cover.png"><title>Rel</title>'),
      '/hop1': redirect('/hop2', 301),
      '/hop2': redirect('/hop3', 307),
      '/hop3': (_req, res) => redirect(`${other.origin}/landing`, 308)(_req, res),
      '/loop': redirect('/loop'),
      '/to-file': redirect('file:///etc/passwd'),
      '/big': (_req, res) => {
        // 32 MiB, the first tag at the top and another past the first MiB.
        res.writeHead(200, { 'content-type': 'text/html' });
        const head = '<html><head><title>Big page</title>';
        const filler = `<!--${'x'.repeat(64 * 1024 - 7)}-->`;
        let written = 0;
        const writeMore = (): void => {
          while (written < 32 * 1024 * 1024) {
            const chunk =
              written === 0
                ? head
                : written > 1.5 * 1024 * 1024 && written < 1.6 * 1024 * 1024
                  ? '<meta property="og:description" content="past the cap">' + filler
                  : filler;
            written += chunk.length;
            bigPageBytesSent = written;
            if (!res.write(chunk)) return void res.once('drain', writeMore);
          }
          res.end(() => (bigPageFinished = true));
        };
        res.on('close', () => undefined);
        writeMore();
      },
      // Written on the socket as it is: Node's server would not send chunks this small.
      '/tiny-chunks': (req) => {
        req.socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n' +
            '13\r\n<title>Tiny</title>\r\n' +
            '1\r\n \r\n'.repeat(200_000) +
            '0\r\n\r\n',
        );
        req.socket.end();
      },
      '/small-chunks': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<title>Small</title>');
        for (let i = 0; i < 2000; i++) res.write(`<p>${i}</p>`.padEnd(16));
        res.end();
      },
      '/gzip-bomb': (_req, res) => {
        const page = Buffer.concat([Buffer.from('<title>Bomb</title>'), Buffer.alloc(20 * 1024 * 1024, 0x20)]);
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync(page));
      },
      '/dies-mid-body': (_req, res, hit) => {
        if (hit > 1) return html('<title>Whole</title>')(_req, res);
        // The server process dies with the page half sent: the connection is cut, not ended.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write(`<title>Half`);
        setTimeout(() => res.socket?.destroy(), 20);
      },
      '/deep-then-silent': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.on('close', () => (deepPageClosed = true));
        // Past the parser's depth limit, then nothing more, the body never ending.
        res.write(`<title>Deep</title>${'<b>'.repeat(PARSE_LIMITS.depth + 10)}`);
      },
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<title>Never finishes');
        // ...and nothing more: only the fetcher's own timeout ends this.
      },
      '/json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"title":"no"}'),
      '/no-type': (_req, res) => res.writeHead(200).end('<title>untyped</title>'),
      '/flaky': (_req, res, hit) =>
        hit === 1
          ? res.writeHead(500, { 'content-type': 'text/html' }).end('oops')
          : html('<title>Second time lucky</title>')(_req, res),
      '/always-503': (_req, res) => res.writeHead(503).end(),
      '/gone': (_req, res) => res.writeHead(410, { 'content-type': 'text/html' }).end('<title>Gone</title>'),
      '/switch': (req) => {
        // A 101 nobody asked for, then silence: the socket stays open.
        req.socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n');
      },
      '/endless-redirect': (_req, res) => endless(res, 302, { location: '/bare' }),
      '/endless-404': (_req, res) => endless(res, 404, { 'content-type': 'text/html' }),
      '/brotli': (req, res) => {
        brotliAsked = req.headers['accept-encoding'] ?? '';
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' })
          .end(zlib.brotliCompressSync('<title>Brotli</title>'));
      },
      '/latin1': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
          .end(Buffer.from('<title>Caf\xe9 cr\xe8me</title>', 'latin1')),
    });
  });

  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it('reads Open Graph tags, and sends a User-Agent naming the service', async () => {
    await expect(preview(`${site.origin}/og`)).resolves.toEqual({
      kind: 'fetched',
      finalUrl: `${site.origin}/og`,
      title: 'Open & Graph',
      description: 'An OG description',
      image: 'https://cdn.example.com/og.png',
    });
    expect(site.userAgents).toContain(USER_AGENT);
  });

  it('reads Twitter tags when there are no Open Graph tags', async () => {
    await expect(preview(`${site.origin}/twitter`)).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Tweet title',
      description: 'Tweet description',
      image: 'https://cdn.example.com/t.png',
    });
  });

  it('reads a bare <title>', async () => {
    await expect(preview(`${site.origin}/bare`)).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Just a title',
      description: null,
      image: null,
    });
  });

  it('fetches a page at localhost, the loopback without a name server', async () => {
    await expect(preview(`http://localhost:${new URL(site.origin).port}/bare`)).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Just a title',
    });
  });

  it('resolves a relative image against the page URL', async () => {
    await expect(preview(`${site.origin}/relative/page`)).resolves.toMatchObject({
      image: `${site.origin}/img/cover.png`,
    });
  });

  it('follows a redirect chain across hosts, and resolves the image against the final URL', async () => {
    await expect(preview(`${site.origin}/hop1#fragment`)).resolves.toEqual({
      kind: 'fetched',
      finalUrl: `${other.origin}/landing`,
      title: 'Landed elsewhere',
      description: null,
      image: `${other.origin}/pics/hero.jpg`,
    });
  });

  it('asks for a slot on each other host a redirect goes to before following it, and times out waiting', async () => {
    const fetchPage = createPageFetcher({ ...DEFAULT_FETCH_POLICY, allowPrivateNetworks: true, userAgent: 'x' });
    const entered: string[] = [];
    // Three hops on the first host, the fourth to the other one
    const page = await fetchPage(`${site.origin}/hop1`, async (host) => void entered.push(host));
    expect(page.finalUrl).toBe(`${other.origin}/landing`);
    expect(entered).toEqual([new URL(other.origin).host]);
    // A slot that never comes: the fetch's time runs out, a transient failure to try again later
    const waiting = createPageFetcher({
      ...DEFAULT_FETCH_POLICY,
      timeoutMs: 300,
      allowPrivateNetworks: true,
      userAgent: 'x',
    });
    const hitsBefore = other.hits.get('/landing') ?? 0;
    await expect(
      waiting(
        `${site.origin}/hop1`,
        (_host, signal) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(new Error('no slot in time'))),
          ),
      ),
    ).rejects.toMatchObject({ code: 'timeout', transient: true });
    expect(other.hits.get('/landing') ?? 0).toBe(hitsBefore);
  });

  it('gives up after 5 redirects, and refuses a redirect to another scheme', async () => {
    await expect(preview(`${site.origin}/loop`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^too_many_redirects/),
      attempts: 1,
    });
    expect(site.hits.get('/loop')).toBe(6); // the first request and 5 redirects
    await expect(preview(`${site.origin}/to-file`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^unsupported_scheme/),
    });
  });

  it('reads at most 1 MiB of a larger page, and stops downloading it', async () => {
    const outcome = await preview(`${site.origin}/big`);
    expect(outcome).toMatchObject({ kind: 'fetched', title: 'Big page', description: null });
    await sleep(200);
    expect(bigPageFinished).toBe(false);
    expect(bigPageBytesSent).toBeLessThan(32 * 1024 * 1024);
  });

  it('tries a page again whose connection was cut halfway through its body', async () => {
    await expect(preview(`${site.origin}/dies-mid-body`)).resolves.toMatchObject({ kind: 'fetched', title: 'Whole' });
    expect(site.hits.get('/dies-mid-body')).toBe(2);
  });

  it('stops reading a page, and ends its download, once its parse stops', async () => {
    // Read to its end, this page would time out: its body never ends.
    await expect(preview(`${site.origin}/deep-then-silent`, { timeoutMs: 2000 }, 1)).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Deep',
    });
    await eventually(async () => (deepPageClosed ? true : undefined), 10_000);
  });

  it('caps the decompressed size, not the compressed one', async () => {
    const fetchPage = createPageFetcher({ ...DEFAULT_FETCH_POLICY, allowPrivateNetworks: true, userAgent: 'x' });
    const page = await fetchPage(`${site.origin}/gzip-bomb`);
    const chunks: Buffer[] = [];
    for await (const chunk of page.body) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(1024 * 1024);
    expect(body.subarray(0, 19).toString()).toBe('<title>Bomb</title>');
  });

  it('stops reading a body sent in pieces too small to be a page, without retrying', async () => {
    // Node's parser spends its time on each chunk: 1 MiB a byte a chunk cost 2.3 s of CPU.
    await expect(preview(`${site.origin}/tiny-chunks`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^bad_response: the body came in pieces too small/),
    });
    expect(site.hits.get('/tiny-chunks')).toBe(1);
    // A server that flushes small pieces of a real page is read as ever.
    await expect(preview(`${site.origin}/small-chunks`)).resolves.toMatchObject({ kind: 'fetched', title: 'Small' });
  });

  it('times out a slow page after 5 s in all', async () => {
    const started = Date.now();
    await expect(preview(`${site.origin}/slow`, {}, 1)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^timeout/),
    });
    // Not a timing assertion on our speed: proof the default limit, not some other, ended it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEFAULT_FETCH_POLICY.timeoutMs - 50);
    expect(DEFAULT_FETCH_POLICY.timeoutMs).toBe(5000);
  });

  it('settles a 101 it did not ask for at once, rather than hold its slot for ever', async () => {
    // Given no retries, the first answer is the outcome: never a timeout, which would prove nothing settled it.
    await expect(preview(`${site.origin}/switch`, { timeoutMs: 60_000 }, 1)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^bad_response: the server switched protocols/),
    });
  });

  it('never downloads the body of a redirect or an error page it does not read', async () => {
    await expect(preview(`${site.origin}/endless-redirect`, { timeoutMs: 60_000 })).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Just a title',
    });
    await expect(preview(`${site.origin}/endless-404`, { timeoutMs: 60_000 }, 1)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^http_404/),
    });
    for (const path of ['/endless-redirect', '/endless-404']) {
      const body = endlessBodies.get(path)!;
      // The server learns of it when its writes fail; resumed, the connection would read 256 MiB first.
      await eventually(async () => (body.closed ? true : undefined), 10_000);
      expect([path, body.written < 32 * 1024 * 1024]).toEqual([path, true]);
    }
  });

  it('asks for no Brotli, and refuses a Brotli body sent anyway (its decoder holds up to 16 MiB)', async () => {
    await expect(preview(`${site.origin}/brotli`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^bad_encoding: Brotli was not asked for/),
      attempts: 1,
    });
    expect(brotliAsked).toBe('gzip, deflate');
  });

  it('refuses a response that is not HTML, without retrying', async () => {
    await expect(preview(`${site.origin}/json`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^not_html: content type "application\/json"/),
      attempts: 1,
    });
    await expect(preview(`${site.origin}/no-type`)).resolves.toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^not_html/),
    });
    expect(site.hits.get('/json')).toBe(1);
  });

  it('retries a 500 and succeeds the second time', async () => {
    await expect(preview(`${site.origin}/flaky`)).resolves.toMatchObject({
      kind: 'fetched',
      title: 'Second time lucky',
    });
    expect(site.hits.get('/flaky')).toBe(2);
  });

  it('retries transient failures a bounded number of times, permanent ones never', async () => {
    await expect(preview(`${site.origin}/always-503`)).resolves.toMatchObject({
      kind: 'failed',
      reason: 'http_503: the server answered HTTP 503 (after 3 attempts)',
      attempts: 3,
    });
    expect(site.hits.get('/always-503')).toBe(3);
    await expect(preview(`${site.origin}/gone`)).resolves.toMatchObject({ kind: 'failed', attempts: 1 });
    expect(site.hits.get('/gone')).toBe(1);
  });

  it('decodes the page in the charset it declares', async () => {
    await expect(preview(`${site.origin}/latin1`)).resolves.toMatchObject({ title: 'Café crème' });
  });
});

describe('fetching a preview with the default policy (private networks refused)', () => {
  let local: TestSite;
  let publicLooking: TestSite;

  beforeAll(async () => {
    local = await startSite({ '/secret': html('<title>Internal admin</title>') });
    // 127.0.0.2 stands in for a public server: it is let through by address, one
    // address only, while every other private address stays refused.
    publicLooking = await startSite(
      {
        '/to-loopback': (_req, res) => redirect(`${local.origin}/secret`)(_req, res),
        '/to-localhost': (_req, res) => redirect(`http://localhost:${new URL(local.origin).port}/secret`)(_req, res),
        '/fine': html('<title>Public page</title>'),
      },
      '127.0.0.2',
    );
  });

  afterAll(async () => {
    await local.close();
    await publicLooking.close();
  });

  const strict = (url: string) => preview(url, { allowPrivateNetworks: false, allowAddresses: ['127.0.0.2'] });
  const blocked = { kind: 'failed', reason: expect.stringMatching(/^blocked_address/), attempts: 1 };

  it('lets the stand-in public server through (so the refusals below are about the address)', async () => {
    await expect(strict(`${publicLooking.origin}/fine`)).resolves.toMatchObject({ title: 'Public page' });
  });

  it('refuses a destination on 127.0.0.1', async () => {
    await expect(strict(`${local.origin}/secret`)).resolves.toMatchObject(blocked);
  });

  it('refuses a redirect to 127.0.0.1', async () => {
    await expect(strict(`${publicLooking.origin}/to-loopback`)).resolves.toMatchObject(blocked);
    expect(publicLooking.hits.get('/to-loopback')).toBe(1);
  });

  it('refuses a host name that resolves to 127.0.0.1, directly or through a redirect', async () => {
    await expect(strict(`http://localhost:${new URL(local.origin).port}/secret`)).resolves.toMatchObject(blocked);
    await expect(strict(`${publicLooking.origin}/to-localhost`)).resolves.toMatchObject(blocked);
  });

  describe('names from the name servers', () => {
    let dns: DnsTestServer;
    const port = () => new URL(local.origin).port;
    const viaDns = (url: string, maxAttempts = 1) =>
      preview(
        url,
        {
          allowPrivateNetworks: false,
          allowAddresses: ['127.0.0.2'],
          dns: { timeoutMs: 100, tries: 1, servers: [dns.address] },
        },
        maxAttempts,
      );

    beforeAll(async () => {
      dns = await startDnsTestServer((name) =>
        name === 'public.example'
          ? { addresses: ['127.0.0.2'] }
          : name === 'internal.example'
            ? { addresses: ['127.0.0.1'] }
            : name === 'gone.example'
              ? 'nxdomain'
              : 'silent',
      );
    });
    afterAll(() => dns.close());

    it('fetches a page at a name the servers resolve to a public address', async () => {
      await expect(viaDns(`http://public.example:${new URL(publicLooking.origin).port}/fine`)).resolves.toMatchObject({
        title: 'Public page',
      });
    });

    it('refuses a name the servers resolve to 127.0.0.1', async () => {
      await expect(viaDns(`http://internal.example:${port()}/secret`)).resolves.toMatchObject(blocked);
    });

    it('tells a name that does not exist from servers that do not answer, which are asked again', async () => {
      await expect(viaDns(`http://gone.example:${port()}/`, 2)).resolves.toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(/^dns_not_found/),
        attempts: 1,
      });
      await expect(viaDns(`http://dead.example:${port()}/`, 2)).resolves.toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(/^dns_failed/),
        attempts: 2,
      });
    });
  });

  it('never reaches the loopback server', () => {
    expect(local.hits.size).toBe(0);
  });

  it.each([
    ['cloud metadata (link-local)', 'http://169.254.169.254/latest/meta-data/'],
    ['private 10/8', 'http://10.0.0.1/'],
    ['private 192.168/16', 'http://192.168.1.1/'],
    ['unspecified', 'http://0.0.0.0:80/'],
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv6 unique local', 'http://[fd00::1]/'],
    ['multicast', 'http://224.0.0.1/'],
    ['loopback in decimal', 'http://2130706433/'],
    ['IPv4-compatible IPv6 loopback', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible IPv6 private', 'http://[::10.0.0.1]/'],
    ['IPv4-translated IPv6 loopback', 'http://[::ffff:0:127.0.0.1]/'],
    ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/'],
    ['local-use NAT64 of a private address', 'http://[64:ff9b:1::10.0.0.1]/'],
    ['6to4 of loopback', 'http://[2002:7f00:1::]/'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ])('refuses %s before connecting', async (_name, url) => {
    await expect(preview(url, { allowPrivateNetworks: false })).resolves.toMatchObject(blocked);
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/']) {
      await expect(preview(url, { allowPrivateNetworks: false })).resolves.toMatchObject({
        kind: 'failed',
        reason: expect.stringMatching(/^unsupported_scheme/),
      });
    }
  });
});

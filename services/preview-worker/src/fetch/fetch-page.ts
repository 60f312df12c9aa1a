import * as http from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
import type { LookupFunction } from 'node:net';
import * as zlib from 'node:zlib';
import { createPublicNetwork, isIpv6EmbeddingIpv4, type DestinationLookupOptions } from '@shortlink/public-network';
import { classifyError, PreviewFetchError } from './fetch-errors';

export interface FetchPolicy {
  /** PREVIEW_ALLOW_PRIVATE_NETWORKS: lifts the public-address rule. Local testing only. */
  allowPrivateNetworks: boolean;
  /**
   * Single addresses let through while private networks stay refused. Not an
   * operator setting: tests use it to stand a "public" server on a second
   * loopback address and prove a redirect from it to 127.0.0.1 is refused.
   */
  allowAddresses?: readonly string[];
  /** Whole fetch, every redirect hop included. */
  timeoutMs: number;
  /** Most bytes of (decoded) body read; the rest is never downloaded. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** How destinations' names are resolved (@shortlink/public-network); tests name their own name server. */
  dns?: DestinationLookupOptions;
}

export const DEFAULT_FETCH_POLICY: Omit<FetchPolicy, 'userAgent' | 'allowPrivateNetworks'> = {
  timeoutMs: 5000,
  maxBytes: 1024 * 1024,
  maxRedirects: 5,
};

export interface FetchedPage {
  /** The URL the body is read from, after redirects. */
  finalUrl: string;
  /** The response's Content-Type header, for the charset. */
  contentType: string;
  /**
   * The body, decoded, as it arrives, cut at `maxBytes`: read once. Leaving
   * the loop early ends the download; a failure while reading throws a
   * PreviewFetchError. Not read, it is dropped when the fetch times out.
   */
  body: AsyncIterable<Buffer>;
}

/**
 * Called before a redirect to another host (`host:port`) is followed; the hop
 * waits for it (a fetch slot on that host). Rejects, with the signal's
 * reason, if the fetch runs out of time first.
 */
export type EnterHost = (host: string, signal: AbortSignal) => Promise<void>;

export type PageFetcher = (url: string, enterHost?: EnterHost) => Promise<FetchedPage>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Worth asking again later: the server said so, or was overloaded or restarting. */
const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
const MAX_URL_LENGTH = 2048;

/**
 * Fetches an HTML page on behalf of an API user, who may point it anywhere. Addresses are checked inside the
 * connection's own DNS lookup (request-filtering-agent), so the address checked is the one connected to, for every
 * redirect hop, and DNS rebinding cannot slip through. Redirects are followed by hand, each hop checked for scheme,
 * length and count; nothing is sent but a GET.
 */
export function createPageFetcher(policy: FetchPolicy): PageFetcher {
  const { agents, lookup } = createPublicNetwork(policy);

  return async (startUrl, enterHost) => {
    const signal = AbortSignal.timeout(policy.timeoutMs);
    let url = parseTarget(startUrl);
    for (let redirects = 0; ; redirects++) {
      const response = await get(url, agents[url.protocol as 'http:' | 'https:'], lookup, policy.userAgent, signal);
      const status = response.statusCode ?? 0;
      // A body not read is not downloaded: destroyed, not resumed (a hostile
      // redirect or error page can be endless, and the fetch's slot is free by then).
      if (REDIRECTS.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new PreviewFetchError('bad_redirect', false, `HTTP ${status} without a Location header`);
        if (redirects >= policy.maxRedirects) {
          throw new PreviewFetchError('too_many_redirects', false, `more than ${policy.maxRedirects} redirects`);
        }
        const from = url.host;
        url = parseTarget(location, url);
        if (enterHost && url.host !== from) {
          try {
            await enterHost(url.host, signal);
          } catch (err) {
            throw classifyError(err, signal);
          }
        }
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new PreviewFetchError(
          `http_${status}`,
          TRANSIENT_STATUSES.has(status),
          `the server answered HTTP ${status}`,
        );
      }
      const contentType = response.headers['content-type'] ?? '';
      if (mediaType(contentType) !== 'text/html') {
        response.destroy();
        throw new PreviewFetchError('not_html', false, `content type ${JSON.stringify(contentType || '(none)')}`);
      }
      const socket = response.socket;
      const readBefore = socket.bytesRead;
      const body = cappedBody(decoded(response), policy.maxBytes, signal, () => socket.bytesRead - readBefore);
      return { finalUrl: url.href, contentType, body };
    }
  };
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new PreviewFetchError('bad_url', false, `not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PreviewFetchError('unsupported_scheme', false, `only http and https are fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new PreviewFetchError('bad_url', false, 'URLs with credentials are not fetched');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new PreviewFetchError('bad_url', false, `URL longer than ${MAX_URL_LENGTH} characters`);
  }
  url.hash = '';
  return url;
}

function get(
  url: URL,
  agent: http.Agent,
  lookup: LookupFunction,
  userAgent: string,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    if (isIpv6EmbeddingIpv4(url.hostname)) {
      reject(new PreviewFetchError('blocked_address', false, 'the destination is an IPv6 address embedding IPv4'));
      return;
    }
    const req = request(url, {
      method: 'GET',
      agent,
      signal,
      lookup,
      headers: {
        'user-agent': userAgent,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
        // Not br: a Brotli stream makes its decoder hold a window of up to
        // 16 MiB whatever the body's size, 17 MiB a fetch at 256 at once.
        'accept-encoding': 'gzip, deflate',
      },
    });
    req.once('response', resolve);
    req.once('error', (err) => reject(classifyError(err, signal)));
    // A 101 nobody asked for: Node emits no response and no error, only the
    // close, and an abort of a request already closed settles nothing. Without
    // these, one such page would hold its fetch slot for ever.
    req.once('upgrade', (_response, socket) => {
      socket.destroy();
      reject(new PreviewFetchError('bad_response', false, 'the server switched protocols'));
    });
    req.once('close', () => reject(classifyError(new Error('socket hang up'), signal)));
    req.end();
  });
}

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The body stream with its Content-Encoding undone; the cap applies to what comes out. */
function decoded(response: http.IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'br') {
    response.destroy();
    throw new PreviewFetchError('bad_encoding', false, 'Brotli was not asked for');
  }
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : null;
  if (!decoder) return response;
  response.on('error', (err) => decoder.destroy(err));
  decoder.on('close', () => response.destroy());
  return response.pipe(decoder);
}

/**
 * A body may take this many bytes off the socket, plus twice what it gave, before its pieces are judged too small to be
 * a page. Node's HTTP parser spends about 1.5 µs on each chunk however small, on the thread that in the embedded mode
 * also answers redirects; a real server's framing is a few bytes a chunk of hundreds or more, so under about 8 bytes a
 * chunk the wire outgrows twice the body, and such a fetch stops after about one socket read
 * (docs/decisions/0061-a-hostile-page-costs-bounded-work.md).
 */
const TINY_PIECES_SLACK_BYTES = 32 * 1024;

/** The body's pieces, at most `maxBytes` in all; the stream is destroyed once they stop being taken. */
async function* cappedBody(
  stream: Readable,
  maxBytes: number,
  signal: AbortSignal,
  wireBytes: () => number,
): AsyncGenerator<Buffer, void, undefined> {
  let size = 0;
  const onAbort = () => stream.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Leaving this loop, by a return, a throw or the reader's own leaving, destroys the stream and its connection.
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (wireBytes() > TINY_PIECES_SLACK_BYTES + 2 * (size + buffer.length)) {
        throw new PreviewFetchError('bad_response', false, 'the body came in pieces too small to be a web page');
      }
      if (size + buffer.length >= maxBytes) {
        // The rest is never read off the socket.
        yield buffer.subarray(0, maxBytes - size);
        return;
      }
      size += buffer.length;
      yield buffer;
    }
  } catch (err) {
    throw classifyError(err, signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

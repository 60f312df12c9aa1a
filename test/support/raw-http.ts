import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 spoken byte by byte, for requests no well-behaved client sends:
 * `fetch` and `http.request` refuse control characters in headers, normalise
 * dot segments, add a Host header and frame bodies themselves, so they cannot
 * say what a hostile client says. Each request goes on a connection of its own.
 */
export interface RawRequest {
  method: string;
  /** The request target exactly as written on the request line. */
  target: string;
  /** In order, repeats allowed. Host is not added: a request without one is a case to test. */
  headers: ReadonlyArray<readonly [string, string]>;
  body?: string | Uint8Array;
  /**
   * `content-length` (the default) writes the body's true length; `chunked`
   * frames it in chunks; `as-given` writes no framing header beyond `headers`.
   */
  framing?: 'content-length' | 'chunked' | 'as-given';
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

export function encodeRequest(request: RawRequest): Buffer {
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const framing = request.framing ?? 'content-length';
  const headers = [...request.headers];
  if (framing === 'content-length' && (request.body !== undefined || request.method === 'POST')) {
    headers.push(['Content-Length', String(body.length)]);
  }
  if (framing === 'chunked') headers.push(['Transfer-Encoding', 'chunked']);
  // Always last, so that the server closes once it answered and the exchange has a clear end.
  headers.push(['Connection', 'close']);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  const payload =
    framing === 'chunked'
      ? Buffer.concat([
          ...(body.length > 0 ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')] : []),
          Buffer.from('0\r\n\r\n'),
        ])
      : body;
  // Text is sent as UTF-8: non-ASCII characters in a header become obs-text bytes, as a hostile client would send them.
  return Buffer.concat([Buffer.from(head, 'utf8'), payload]);
}

export interface ExchangeOptions {
  /** No final response within this is a hang. */
  timeoutMs: number;
  /** A HEAD request: its response has no body whatever its Content-Length says. */
  head?: boolean;
}

export class NoAnswer extends Error {}

/**
 * Writes the bytes on a new connection and collects every
 * final response until the server closes. Rejects with `NoAnswer` when the
 * connection ends, or the time runs out, without a complete response.
 */
export function exchange(port: number, bytes: Uint8Array, options: ExchangeOptions): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      socket.destroy();
      const responses = parseResponses(Buffer.concat(chunks), options.head ?? false);
      if (responses.length > 0) resolve(responses);
      else reject(new NoAnswer(error?.message ?? `no complete response (${Buffer.concat(chunks).length} bytes read)`));
    };
    const deadline = setTimeout(() => finish(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // A request whose own bytes kept the connection open (a header block ended early by an
      // injected blank line) is over once a response has come: the server need not close.
      if (graceTimer === undefined && parseResponses(Buffer.concat(chunks), options.head ?? false).length > 0) {
        graceTimer = setTimeout(() => finish(), 1000);
      }
    });
    socket.on('close', () => finish());
    // A reset after the answer arrived changes nothing; before it, `finish` reports no answer.
    socket.on('error', (error) => finish(error));
    // Not half-closed: Node's server aborts a request still in progress when its client ends the connection.
    socket.write(bytes);
  });
}

/** Every complete final response in the bytes; 1xx interim responses are skipped. */
export function parseResponses(data: Buffer, head: boolean): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < data.length) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const [statusLine = '', ...lines] = data.subarray(offset, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) break;
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let cursor = end + 4;
    let body: Buffer;
    if (status < 200 || status === 204 || status === 304 || (head && responses.length === 0)) {
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', cursor);
        if (lineEnd < 0) return responses;
        const size = parseInt(data.subarray(cursor, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) return responses;
        cursor = lineEnd + 2;
        if (size === 0) {
          const trailerEnd = data.indexOf('\r\n', cursor);
          if (trailerEnd < 0) return responses;
          cursor = trailerEnd + 2;
          break;
        }
        if (cursor + size > data.length) return responses;
        parts.push(data.subarray(cursor, cursor + size));
        cursor += size + 2;
      }
      body = Buffer.concat(parts);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (cursor + length > data.length) break;
      body = data.subarray(cursor, cursor + length);
      cursor += length;
    } else {
      body = data.subarray(cursor);
      cursor = data.length;
    }
    offset = cursor;
    if (status >= 200) responses.push({ status, headers, body: body.toString('utf8') });
  }
  return responses;
}

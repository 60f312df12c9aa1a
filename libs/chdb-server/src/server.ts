import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, deflate, gunzip, gzip, inflate } from 'node:zlib';
import { ChdbEngine } from './engine';
import { streamedQuery, streamResult } from './streamed-result';
import { decodeParams, ParamError } from './params';

/**
 * A local stand-in for ClickHouse's HTTP interface, backed by chdb, for development, tests and the embedded mode, one
 * query at a time. It implements what `@clickhouse/client` uses: ping, `FORMAT`, `param_*`, per-request settings,
 * `database`, inserts after a `query=` parameter, gzip both ways, errors as non-200 with ClickHouse's text. Given a
 * password it answers only requests carrying it (`/ping` aside), since any local user could otherwise run any SQL,
 * `file()` included, as this process; a GET runs read-only, so a browser page cannot change anything through it.
 */

/** URL parameters that steer the HTTP layer rather than being engine settings. */
const CONTROL_PARAMS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'quota_key',
  'compress',
  'decompress',
  'buffer_size',
  'role',
  'client_protocol_version',
]);

/** Settings that exist only in a real server's HTTP layer; they change nothing here. */
const HTTP_ONLY_SETTINGS = new Set([
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'http_wait_end_of_query',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_native_compression_disable_checksumming_on_decompress',
  'cancel_http_readonly_queries_on_client_close',
]);

const MAX_BODY_BYTES = 256 * 1024 * 1024;

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const brotliAsync = promisify(brotliDecompress);
const gzipAsync = promisify(gzip);
const deflateAsync = promisify(deflate);

export interface ChdbHttpServerOptions {
  /** The on-disk data directory of the engine. */
  dataPath: string;
  /** Required of every query when set (any user name). */
  password?: string;
  /** Called once per failed query, for logging. */
  onError?: (error: Error, sql: string) => void;
  /** Where a streamed Parquet (or other whole-file format) result is written before it is sent; the OS's default. */
  tempDir?: string;
}

export interface ChdbHttpServer {
  server: Server;
  close(): Promise<void>;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function exceptionText(code: number, message: string, type: string): string {
  return `Code: ${code}. DB::Exception: ${message}. (${type})`;
}

/** A real server answers these with 4xx; everything else is a 500. */
function statusForCode(code: number): number {
  switch (code) {
    case 62: // SYNTAX_ERROR
    case 115: // UNKNOWN_SETTING
    case 36: // BAD_ARGUMENTS
    case 26: // CANNOT_PARSE_QUOTED_STRING
    case 27: // CANNOT_PARSE_INPUT_ASSERTION_FAILED
    case 456: // UNKNOWN_QUERY_PARAMETER
    case 457: // BAD_QUERY_PARAMETER
      return 400;
    case 60: // UNKNOWN_TABLE
    case 81: // UNKNOWN_DATABASE
      return 404;
    default:
      return 500;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpFailure(413, exceptionText(36, `Request body over ${MAX_BODY_BYTES} bytes`, 'BAD_ARGUMENTS'));
    }
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  switch ((req.headers['content-encoding'] ?? '').toLowerCase()) {
    case '':
    case 'identity':
      return raw;
    case 'gzip':
      return gunzipAsync(raw);
    case 'deflate':
      return inflateAsync(raw);
    case 'br':
      return brotliAsync(raw);
    default:
      throw new HttpFailure(
        400,
        exceptionText(36, `Unsupported Content-Encoding ${req.headers['content-encoding']}`, 'BAD_ARGUMENTS'),
      );
  }
}

/** The password a request carries, however ClickHouse's HTTP interface takes one. */
function passwordOf(req: IncomingMessage, url: URL): string | undefined {
  const key = req.headers['x-clickhouse-key'];
  if (typeof key === 'string') return key;
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return url.searchParams.get('password') ?? undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const samePassword = (given: string | undefined, expected: string) =>
  given !== undefined && timingSafeEqual(digest(given), digest(expected));

function contentTypeFor(format: string): string {
  if (/^JSON/i.test(format)) return 'application/json; charset=UTF-8';
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8';
  return 'text/tab-separated-values; charset=UTF-8';
}

export async function startChdbHttpServer(
  options: ChdbHttpServerOptions & { host: string; port: number },
): Promise<ChdbHttpServer> {
  const engine = new ChdbEngine(options.dataPath);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method !== 'POST' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    if (options.password !== undefined && !samePassword(passwordOf(req, url), options.password)) {
      throw new HttpFailure(
        401,
        exceptionText(516, 'default: Authentication failed: password is incorrect', 'AUTHENTICATION_FAILED'),
      );
    }
    if (url.pathname !== '/') {
      throw new HttpFailure(404, exceptionText(36, `No handler for ${url.pathname}`, 'BAD_ARGUMENTS'));
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      throw new HttpFailure(405, exceptionText(36, `Method ${req.method} not allowed`, 'BAD_ARGUMENTS'));
    }

    const body = req.method === 'POST' ? (await readBody(req)).toString('utf8') : '';
    const urlQuery = url.searchParams.get('query') ?? '';
    // As on a real server: the URL's query comes first and the body (insert data, usually) follows it.
    const sql = urlQuery && body ? `${urlQuery}\n${body}` : urlQuery || body;
    if (!sql.trim()) throw new HttpFailure(400, exceptionText(62, 'Empty query', 'SYNTAX_ERROR'));

    const settings: Record<string, string> = {};
    const textParams: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith('param_')) textParams[name.slice('param_'.length)] = value;
      else if (!CONTROL_PARAMS.has(name) && !HTTP_ONLY_SETTINGS.has(name)) settings[name] = value;
    }
    // As ClickHouse's HTTP interface: a GET changes nothing.
    if (req.method === 'GET') settings.readonly = '1';
    const format = url.searchParams.get('default_format') ?? 'TabSeparated';
    const database = url.searchParams.get('database') ?? 'default';
    const queryId = url.searchParams.get('query_id') ?? randomUUID();

    let params: Record<string, string>;
    try {
      params = decodeParams(sql, textParams);
    } catch (e) {
      if (e instanceof ParamError) throw new HttpFailure(400, exceptionText(457, e.message, 'BAD_QUERY_PARAMETER'));
      throw e;
    }

    // A SELECT ending in a FORMAT clause is answered as the engine produces it, so memory stays flat however large.
    const streamed = streamedQuery(sql);
    if (streamed) {
      await streamResult(engine, streamed, { database, settings, params, queryId, tempDir: options.tempDir }, req, res);
      return;
    }

    const result = await engine.run({ sql, format, database, settings, params });

    let payload = Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
    const headers: Record<string, string> = {
      'Content-Type': contentTypeFor(format),
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Timezone': 'UTC',
      'X-ClickHouse-Server-Display-Name': 'chdb-local',
      'X-ClickHouse-Summary': JSON.stringify({
        read_rows: String(result.rowsRead),
        read_bytes: String(result.bytesRead),
        written_rows: '0',
        written_bytes: '0',
        total_rows_to_read: '0',
        result_rows: '0',
        result_bytes: String(payload.length),
        elapsed_ns: String(Math.round(result.elapsedSeconds * 1e9)),
      }),
    };
    const accept = String(req.headers['accept-encoding'] ?? '');
    if (url.searchParams.get('enable_http_compression') === '1' && payload.length > 0) {
      if (/\bgzip\b/.test(accept)) {
        payload = await gzipAsync(payload);
        headers['Content-Encoding'] = 'gzip';
      } else if (/\bdeflate\b/.test(accept)) {
        payload = await deflateAsync(payload);
        headers['Content-Encoding'] = 'deflate';
      }
    }
    res.writeHead(200, headers).end(payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const error = e instanceof Error ? e : new Error(String(e));
      let status = e instanceof HttpFailure ? e.status : 500;
      let text = error.message;
      const code = /^Code: (\d+)\./.exec(text)?.[1];
      if (code) {
        if (!(e instanceof HttpFailure)) status = statusForCode(Number(code));
      } else {
        text = exceptionText(1001, text, 'STD_EXCEPTION');
      }
      options.onError?.(error, req.url ?? '');
      if (res.headersSent) {
        res.destroy(error);
        return;
      }
      res
        .writeHead(status, {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Exception-Code': code ?? '1001',
        })
        .end(`${text}\n`);
    });
  });
  server.keepAliveTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await engine.close();
    },
  };
}

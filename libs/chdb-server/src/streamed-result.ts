import { randomUUID } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { ChdbEngine } from './engine';

/**
 * Row formats whose chunks, written one after the other, are one result: the value is how many header lines each
 * chunk repeats (chdb formats every chunk on its own), which are sent once.
 */
const ROW_FORMATS: Readonly<Record<string, number>> = {
  JSONEachRow: 0,
  JSONLines: 0,
  NDJSON: 0,
  JSONCompactEachRow: 0,
  JSONStringsEachRow: 0,
  CSV: 0,
  CSVWithNames: 1,
  CSVWithNamesAndTypes: 2,
  TabSeparated: 0,
  TSV: 0,
  TabSeparatedRaw: 0,
  TSVRaw: 0,
  TabSeparatedWithNames: 1,
  TSVWithNames: 1,
  TabSeparatedWithNamesAndTypes: 2,
  TSVWithNamesAndTypes: 2,
};

/**
 * Formats that are one file (a footer, or a schema up front), which chdb cannot stream chunk by chunk: the engine
 * writes them to a temporary file (its writer keeps a row group at a time), which is sent as it grows.
 */
const FILE_FORMATS = new Set(['Parquet', 'Arrow', 'ArrowStream', 'ORC', 'Avro']);

const TRAILING_FORMAT = /^(\s*(?:SELECT|WITH)\b[\s\S]*?)\s+FORMAT\s+([A-Za-z]+)\s*;?\s*$/i;

export type StreamedQuery =
  { kind: 'rows'; sql: string; format: string; headerLines: number } | { kind: 'file'; select: string; format: string };

/** A SELECT that ends in a FORMAT clause this endpoint streams, or null (answered whole, as before). */
export function streamedQuery(sql: string): StreamedQuery | null {
  const match = TRAILING_FORMAT.exec(sql);
  const select = match?.[1];
  const format = match?.[2];
  if (select === undefined || format === undefined) return null;
  const headerLines = ROW_FORMATS[format];
  if (headerLines !== undefined) return { kind: 'rows', sql, format, headerLines };
  if (FILE_FORMATS.has(format)) return { kind: 'file', select, format };
  return null;
}

export interface StreamContext {
  database: string;
  settings: Record<string, string>;
  params: Record<string, string>;
  queryId: string;
  tempDir: string | undefined;
}

function contentTypeOf(format: string): string {
  if (/^(JSON|NDJSON)/.test(format)) return 'application/x-ndjson; charset=UTF-8';
  if (/^CSV/.test(format)) return 'text/csv; charset=UTF-8';
  if (/^(TSV|TabSeparated)/.test(format)) return 'text/tab-separated-values; charset=UTF-8';
  return 'application/octet-stream';
}

/** The byte length of the first `lines` lines of a chunk (its header), or -1 when it has fewer. */
function headerLength(chunk: Uint8Array, lines: number): number {
  let end = 0;
  for (let i = 0; i < lines; i++) {
    const newline = chunk.indexOf(0x0a, end);
    if (newline === -1) return -1;
    end = newline + 1;
  }
  return end;
}

/**
 * Writes with back-pressure: waits for `drain`, and gives up (false) once the response is gone. Its listeners go
 * with the wait: a response takes thousands of writes, each of which would otherwise leave one behind.
 */
async function send(out: Writable, res: ServerResponse, bytes: Uint8Array): Promise<boolean> {
  if (res.destroyed) return false;
  if (out.write(bytes)) return true;
  return new Promise<boolean>((resolve) => {
    const settle = (sent: boolean) => {
      out.off('drain', drained);
      out.off('error', gone);
      res.off('close', gone);
      resolve(sent);
    };
    const drained = () => settle(!res.destroyed);
    const gone = () => settle(false);
    out.once('drain', drained);
    out.once('error', gone);
    res.once('close', gone);
  });
}

/**
 * Answers a streamed SELECT: an error before the first byte is an ordinary error answer (thrown); one after it cuts
 * the response, as a server does once its 200 is sent. A client that goes away ends the query at its next chunk.
 */
export async function streamResult(
  engine: ChdbEngine,
  query: StreamedQuery,
  context: StreamContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const gzip =
    context.settings.enable_http_compression === '1' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  delete context.settings.enable_http_compression;
  const headers: Record<string, string> = {
    'Content-Type': contentTypeOf(query.format),
    'X-ClickHouse-Query-Id': context.queryId,
    'X-ClickHouse-Format': query.format,
    'X-ClickHouse-Timezone': 'UTC',
    'X-ClickHouse-Server-Display-Name': 'chdb-local',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  };
  const request = { database: context.database, settings: context.settings, params: context.params };
  if (query.kind === 'file') {
    await sendFile(engine, query, request, context, headers, gzip, res);
    return;
  }

  const abort = new AbortController();
  const stop = () => abort.abort();
  res.once('close', stop);
  const chunks = engine.stream({ ...request, sql: query.sql, format: query.format }, abort.signal);
  try {
    // The first chunk decides between an error answer and a 200.
    const first = await chunks.next();
    res.writeHead(200, headers);
    const out: Writable = gzip ? createGzip() : res;
    if (gzip) out.pipe(res);
    let header: Buffer | null = null;
    for (let next = first; !next.done; next = await chunks.next()) {
      let bytes = next.value;
      if (query.headerLines > 0) {
        if (header === null) {
          const length = headerLength(bytes, query.headerLines);
          header = Buffer.from(bytes.subarray(0, Math.max(0, length)));
        } else if (header.length > 0 && Buffer.from(bytes.buffer, bytes.byteOffset, header.length).equals(header)) {
          bytes = bytes.subarray(header.length);
        }
      }
      if (bytes.length > 0 && !(await send(out, res, bytes))) return;
    }
    out.end();
  } finally {
    res.off('close', stop);
    await chunks.return(undefined);
  }
}

/** How often a file being written is looked at again once its end is reached. */
const TAIL_POLL_MS = 50;
const TAIL_CHUNK_BYTES = 256 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A whole-file format: the engine writes it to a temporary file (a row group at a time), which is sent as it grows,
 * so the first bytes leave after the first row group and the client's connection never sits idle for the whole
 * query. The engine cannot be stopped mid-query here: a client that leaves stops the sending, and the file is
 * deleted once the query ends.
 */
async function sendFile(
  engine: ChdbEngine,
  query: Extract<StreamedQuery, { kind: 'file' }>,
  request: Pick<StreamContext, 'database' | 'settings' | 'params'>,
  context: StreamContext,
  headers: Record<string, string>,
  gzip: boolean,
  res: ServerResponse,
): Promise<void> {
  const path = join(context.tempDir ?? tmpdir(), `chdb-result-${randomUUID()}.${query.format.toLowerCase()}`);
  const literal = `'${path.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  // Set by the query's settlement, read by the loops below.
  const outcome: { finished: boolean; failure: Error | null } = { finished: false, failure: null };
  const failed = (): Error | null => outcome.failure;
  const running = engine
    .run({
      ...request,
      sql: `${query.select}\nINTO OUTFILE ${literal} TRUNCATE FORMAT ${query.format}`,
      format: 'TabSeparated',
    })
    .then(
      () => {
        outcome.finished = true;
      },
      (e: unknown) => {
        outcome.finished = true;
        outcome.failure = e instanceof Error ? e : new Error(String(e));
      },
    );
  let file: FileHandle | null = null;
  try {
    // Until the engine has written something (or failed), nothing is answered: a failure is an error answer.
    for (;;) {
      if (file === null) file = await open(path, 'r').catch(() => null);
      const early = failed();
      if (early !== null) throw early;
      if (outcome.finished || (file !== null && (await file.stat()).size > 0)) break;
      if (res.destroyed) return;
      await sleep(TAIL_POLL_MS);
    }
    if (file === null) file = await open(path, 'r');
    res.writeHead(200, headers);
    const out: Writable = gzip ? createGzip() : res;
    if (gzip) out.pipe(res);
    const buffer = Buffer.alloc(TAIL_CHUNK_BYTES);
    let position = 0;
    for (;;) {
      const wasFinished = outcome.finished;
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        // A copy: the buffer is read into again while the response may still hold these bytes.
        if (!(await send(out, res, Buffer.from(buffer.subarray(0, bytesRead))))) return;
        continue;
      }
      // Everything written before the query ended has been read: the file is whole, or the query failed.
      if (wasFinished) {
        const late = failed();
        if (late !== null) throw late;
        out.end();
        return;
      }
      if (res.destroyed) return;
      await sleep(TAIL_POLL_MS);
    }
  } finally {
    await file?.close();
    await running;
    await unlink(path).catch(() => undefined);
  }
}

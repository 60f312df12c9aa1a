import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromPostgresThread, PostgresThreadData, ToPostgresThread } from './postgres-thread-messages';
import { newPostgresPassword, postgresUrl, type EmbeddedPostgres } from './start-postgres';

export interface PostgresThreadOptions {
  /** A session-server failure, for the log. */
  onError?: (error: Error) => void;
  /** The thread died while serving: Postgres is gone, and what the process does about it is its owner's call. */
  onExit?: (error: Error) => void;
}

/**
 * The worker's entry beside this file once built; from the sources (the tests
 * run them through ts-jest), the built one under dist/, since a worker thread
 * runs plain JavaScript.
 */
function builtThreadFile(): string {
  const beside = join(__dirname, 'postgres-thread.js');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', 'dist', 'postgres', 'postgres-thread.js');
}

/**
 * PGlite in `dir` behind its socket (see `start-postgres.ts`), on a thread of
 * its own; resolves once the socket accepts connections.
 */
export function startPostgresOnThread(dir: string, options: PostgresThreadOptions = {}): Promise<EmbeddedPostgres> {
  const password = newPostgresPassword();
  const worker = new Worker(builtThreadFile(), { workerData: { dir, password } satisfies PostgresThreadData });
  const send = (message: ToPostgresThread) => worker.postMessage(message);
  let closing: Promise<void> | undefined;
  let onClosed: (() => void) | undefined;
  let ready = false;

  return new Promise<EmbeddedPostgres>((resolve, reject) => {
    worker.on('message', (message: FromPostgresThread) => {
      switch (message.type) {
        case 'ready':
          ready = true;
          return resolve({ port: message.port, url: postgresUrl(message.port, password), close });
        case 'start-failed':
          void worker.terminate();
          return reject(new Error(`embedded Postgres could not start: ${message.message}`));
        case 'error':
          return options.onError?.(new Error(message.message));
        case 'closed':
          return onClosed?.();
      }
    });
    worker.on('error', (e) => {
      if (!ready) reject(e);
    });
    worker.on('exit', (code) => {
      const error = new Error(`the embedded Postgres thread exited (code ${code})`);
      if (!ready) reject(error);
      else if (!closing) options.onExit?.(error);
      onClosed?.();
    });
  });

  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      onClosed = resolve;
      send({ type: 'close' });
    }).then(() => worker.terminate().then(() => undefined));
    return closing;
  }
}

/**
 * A worker thread's entry: PGlite behind its Postgres socket, on loopback.
 * The services reach it through the socket exactly as they would on the main
 * thread, but PGlite's WebAssembly, which runs every statement synchronously,
 * works beside the event loop that answers requests instead of stalling it.
 * (chdb stays on the main thread: its native addon crashes the process when a
 * worker thread that loaded it ends.)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startPostgres } from './start-postgres';
import type { FromPostgresThread, PostgresThreadData, ToPostgresThread } from './postgres-thread-messages';

const port = parentPort;
if (!port) throw new Error('postgres-thread.js runs as a worker thread');
const { dir, password } = workerData as PostgresThreadData;
const post = (message: FromPostgresThread) => port.postMessage(message);

startPostgres(dir, password, (error) => post({ type: 'error', message: error.message })).then(
  (pg) => {
    port.on('message', (message: ToPostgresThread) => {
      if (message.type !== 'close') return;
      pg.close().then(
        () => post({ type: 'closed' }),
        (e: Error) => post({ type: 'closed', message: e.message }),
      );
    });
    post({ type: 'ready', port: pg.port });
  },
  (e: Error) => post({ type: 'start-failed', message: e.message }),
);

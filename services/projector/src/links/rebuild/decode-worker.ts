import { parentPort } from 'node:worker_threads';
import { decodeFetch, type PackedFetch } from './decode-fetch';

/**
 * The rebuild's decoding thread: parses and folds fetches (the rebuild's
 * heaviest work in JavaScript) beside the thread that drives Kafka and
 * Postgres, which then keeps the writers busy instead of making them wait
 * for its event loop.
 */
const port = parentPort;
if (!port) throw new Error('decode-worker runs as a worker thread');

port.on('message', ({ id, fetch }: { id: number; fetch: PackedFetch }) => {
  try {
    port.postMessage({ id, decoded: decodeFetch(fetch) });
  } catch (e) {
    port.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});

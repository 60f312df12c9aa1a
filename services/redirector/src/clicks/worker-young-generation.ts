import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * The click worker's young generation: semi-spaces of at least this many MB
 * (V8's largest by default on 64-bit machines is 16).
 *
 * Why: V8 shrinks an isolate's young generation while it allocates little, as
 * the click worker does whenever no one clicks (a crawler's redirects are not
 * clicks). When clicks come back, a young generation of 1 MB is collected
 * every few milliseconds, and a batch held for its 50 ms linger and its
 * produce round trip is promoted whole to the old generation, which fills
 * and is marked and compacted again and again: 8 to 12 full collections in
 * the first seconds of each burst of clicks in the click-cost benchmark,
 * mostly on V8's helper threads, none once the young generation had grown
 * back; with it held at 16 MB, none at all, and the helper threads' share of
 * a click went from about 7.5 µs to 2.4 (docs/performance.md). It costs at
 * most 32 MB of the worker's memory.
 */
export const CLICK_WORKER_SEMI_SPACE_MB = 16;

const FLAG = '--min-semi-space-size';

/** The process's own setting, if it was started with one: restored once the worker is made. */
function processSetting(execArgv: readonly string[]): number {
  for (const arg of execArgv) {
    const match = /^--min[-_]semi[-_]space[-_]size=(\d+)$/.exec(arg);
    if (match) return Number(match[1]);
  }
  return 0;
}

/**
 * Makes a worker whose young generation's semi-spaces never shrink below
 * `semiSpaceMb`. The flag is the process's, and V8 reads it when it makes an
 * isolate, on the new thread: it is set for that moment only, and put back
 * once the worker is online (or has failed), so no other isolate gets it.
 */
export function workerWithYoungGeneration(
  semiSpaceMb: number,
  make: () => Worker,
  execArgv: readonly string[] = process.execArgv,
): Worker {
  const before = processSetting(execArgv);
  setFlagsFromString(`${FLAG}=${Math.max(semiSpaceMb, before)}`);
  let worker: Worker;
  try {
    worker = make();
  } catch (err) {
    setFlagsFromString(`${FLAG}=${before}`);
    throw err;
  }
  // Once, at the first of the three: a worker's later exit must not put the
  // flag back while another worker is being made with it.
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    setFlagsFromString(`${FLAG}=${before}`);
  };
  worker.once('online', restore);
  worker.once('error', restore);
  worker.once('exit', restore);
  return worker;
}

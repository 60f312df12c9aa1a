import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits, Worker } from 'node:worker_threads';

/** A worker's young generation, by the two settings V8 takes for it. */
export interface YoungGeneration {
  /** The least new space, in MB (V8's `--min-semi-space-size`, the process's, read as an isolate is made). */
  minSemiSpaceMb: number;
  /** The worker's own resource limit; V8 lets its new space grow to two thirds of it. */
  maxYoungGenerationSizeMb: number;
}

/**
 * The click worker's young generation: a new space of 4 MB at least and 8 at
 * most (as `v8.getHeapSpaceStatistics()` tells it), where V8's own is 1-2 MB
 * when idle and up to 32 under load.
 *
 * At least: V8 shrinks an isolate's young generation while it allocates
 * little, as the click worker does whenever no one clicks (a crawler's
 * redirects are not clicks). When clicks come back, a young generation of a
 * MB or two is collected every few milliseconds, and the batches in flight
 * are promoted whole to the old generation: 8 to 12 full collections in the
 * first seconds of each burst of clicks in the click-cost benchmark.
 *
 * At most: with a young generation of 16-32 MB and an old one of some 25 MB
 * (mostly the remembered addresses), once the worker's first full
 * collection had happened, some 40 s into steady clicks, V8 started marking
 * again as soon as each one ended (`--trace-incremental-marking`: started by
 * its task with 24 MB of room left under its limit): the worker was marked
 * and compacted about four times a second, for as long as clicks came,
 * instead of scavenged, and a click cost 8-11 µs more, most of it on V8's
 * helper threads. With at most 8 MB it is scavenged as before
 * (docs/performance.md).
 */
export const CLICK_WORKER_YOUNG_GENERATION: YoungGeneration = { minSemiSpaceMb: 4, maxYoungGenerationSizeMb: 12 };

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
 * Makes a worker with that young generation. The most is the worker's own
 * resource limit, given to `make`. The least is a flag of the process's,
 * which V8 reads when it makes an isolate, on the new thread: it is set for
 * that moment only, and put back once the worker is online (or has failed),
 * so no other isolate gets it.
 */
export function workerWithYoungGeneration(
  { minSemiSpaceMb, maxYoungGenerationSizeMb }: YoungGeneration,
  make: (resourceLimits: ResourceLimits) => Worker,
  execArgv: readonly string[] = process.execArgv,
): Worker {
  const before = processSetting(execArgv);
  setFlagsFromString(`${FLAG}=${minSemiSpaceMb}`);
  let worker: Worker;
  try {
    worker = make({ maxYoungGenerationSizeMb });
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

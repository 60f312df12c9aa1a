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
 * The click worker's young generation: a new space of 4 MB at least and 8 MB at most (V8's own: 1-2 MB idle, up to 32
 * under load). At least, because a young generation shrunk while no one clicked is collected every few milliseconds
 * when clicks return, promoting the batches in flight whole. At most, because with 16-32 MB V8 went on marking and
 * compacting the old generation about four times a second instead of scavenging, several µs a click
 * (docs/decisions/0010-click-worker-young-generation.md).
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

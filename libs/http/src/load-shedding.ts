import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { textBody } from './errors';
import { HTTP_ERRORS } from './http-errors';

/**
 * When a process refuses work rather than queue it (docs/reliability.md, "Under more load than it can serve"): a
 * request that would wait behind `maxInFlight` others already in hand, or arrive while the event loop runs late by
 * more than `maxEventLoopDelayMs` (the process is short of CPU, and every answer it owes is late already), is
 * answered at once `503 overloaded` with Retry-After. A client that waits and sends it again finds the process caught
 * up; one queued would have waited for seconds, holding a connection, and its answer might come after it gave up.
 */
export interface LoadSheddingOptions {
  /** Requests of the shedding routes in hand at once, in this process (0: no bound). */
  maxInFlight: number;
  /** The event loop's lateness above which new requests are refused, in ms (0: not watched). */
  maxEventLoopDelayMs: number;
}

/** Seconds a refused client waits: long enough for a backlog of a second or two to clear. */
export const SHED_RETRY_AFTER_SECONDS = 2;

/** How often the event loop's lateness is read: the window it is judged over. */
const SAMPLE_MS = 500;

export interface LoadShedder {
  /** Refuses the routes of this scope (and its children) when the process is over its bounds. */
  guard(scope: FastifyInstance): void;
  /** Requests refused since the start, by why. */
  readonly shed: { inFlight: number; eventLoopDelay: number };
  /** The lateness the last window saw, in ms. */
  eventLoopDelayMs(): number;
  close(): void;
}

/**
 * One per process: every scope it guards shares its count of requests in hand, since they share one event loop.
 * The event loop's lateness is the window's 99th percentile, so one long pause is seen though the mean is low.
 */
export function loadShedder(options: LoadSheddingOptions): LoadShedder {
  let inFlight = 0;
  let lateMs = 0;
  const shed = { inFlight: 0, eventLoopDelay: 0 };
  let histogram: IntervalHistogram | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (options.maxEventLoopDelayMs > 0) {
    histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    timer = setInterval(() => {
      lateMs = histogram!.percentile(99) / 1e6;
      histogram!.reset();
    }, SAMPLE_MS);
    timer.unref();
  }
  const overloaded = (): 'inFlight' | 'eventLoopDelay' | null => {
    if (options.maxInFlight > 0 && inFlight >= options.maxInFlight) return 'inFlight';
    if (options.maxEventLoopDelayMs > 0 && lateMs > options.maxEventLoopDelayMs) return 'eventLoopDelay';
    return null;
  };
  const counted = new WeakSet<object>();
  const release = (request: object) => {
    if (counted.delete(request)) inFlight--;
  };
  return {
    shed,
    eventLoopDelayMs: () => lateMs,
    guard(scope) {
      // onRequest: before the body is read or any store is asked, so a refusal costs next to nothing.
      scope.addHook('onRequest', async (request, reply) => {
        const why = overloaded();
        if (why !== null) {
          shed[why]++;
          const detail =
            why === 'inFlight'
              ? `This instance has ${inFlight} requests in hand, its most; send this one again after Retry-After seconds.`
              : `This instance is short of CPU (answers late by ${Math.round(lateMs)} ms); send this request again after Retry-After seconds.`;
          return reply
            .code(503)
            .header('retry-after', String(SHED_RETRY_AFTER_SECONDS))
            .send(textBody(HTTP_ERRORS.overloaded, { detail }));
        }
        counted.add(request);
        inFlight++;
        // Released by whichever comes: the response's close (answered, or its socket ended beneath fastify: a
        // client reset after its body arrived is no abort to fastify), or the abort of a request still queued
        // behind another on its connection, whose response never closes. Either alone leaked the count under
        // hostile input until the bound refused every request.
        reply.raw.once('close', () => release(request));
      });
      scope.addHook('onResponse', async (request) => release(request));
      scope.addHook('onRequestAbort', async (request) => release(request));
    },
    close() {
      if (timer) clearInterval(timer);
      histogram?.disable();
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import Denque from 'denque';
import { Heap } from 'heap-js';

export interface OutcomeAppenderOptions<L, E> {
  /** The event recording a link's outcome, built when its request is (its id and time are the append's). */
  eventOf: (link: L) => E;
  /** Appends events in one request; rejects when any of them may not be durable. */
  append: (events: E[]) => Promise<void>;
  /** Told of each link once its event is appended. */
  appended: (link: L) => void;
  /** Told of each link given up: its append failed after `stop`. */
  released: (link: L) => void;
  /** Told of each failed request before it is tried again (the same events: repeats are dropped by event id). */
  failed: (err: unknown, attempt: number) => void;
  /** When a link was created: the fresh lane sends the newest first. */
  createdAtOf: (link: L) => number;
  /** Most events in one request. */
  maxBatch: number;
  /** The longest wait between tries of a failed request (default 10 s). */
  maxBackoffMs?: number;
}

export interface OutcomeAppender<L> {
  /** Queues a link whose outcome is known; `fresh` links have a lane of their own, the newest first. */
  add(link: L, fresh: boolean): void;
  /** From now on a failed request is given up, not tried again: its links are released. */
  stop(): void;
  /** Links queued or being appended. */
  readonly pending: number;
}

/**
 * Appends links' outcomes in requests of up to `maxBatch`, one request under way per lane: outcomes finished together
 * share a request, and fresh links have their own lane, newest first, so a new link waits for one request of the
 * backlog's (or of a bulk import's) at most, not for the thousands a popular destination's fetch releases at once. A
 * failed request is retried with backoff until it succeeds or the appender stops. A queued link is the caller's object
 * only: no promise per link (docs/decisions/0017-preview-worker-holds-one-object-per-link.md).
 */
export function createOutcomeAppender<L, E>(options: OutcomeAppenderOptions<L, E>): OutcomeAppender<L> {
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const stopping = new AbortController();
  let pending = 0;

  const lane = (queue: { push(link: L): unknown; shift(): L | undefined; isEmpty(): boolean }) => {
    let running = false;
    const run = async () => {
      running = true;
      try {
        while (!queue.isEmpty()) {
          const links: L[] = [];
          while (links.length < options.maxBatch && !queue.isEmpty()) links.push(queue.shift()!);
          let events: E[] | undefined;
          for (let attempt = 0; ; attempt++) {
            try {
              events ??= links.map((link) => options.eventOf(link));
              await options.append(events);
              for (const link of links) options.appended(link);
              break;
            } catch (err) {
              if (stopping.signal.aborted) {
                for (const link of links) options.released(link);
                break;
              }
              options.failed(err, attempt);
              const backoff = Math.min(maxBackoffMs, 100 * 2 ** Math.min(attempt, 10));
              await sleep(backoff, undefined, { signal: stopping.signal }).catch(() => undefined);
            }
          }
          pending -= links.length;
        }
      } finally {
        running = false;
      }
    };
    return (link: L) => {
      queue.push(link);
      if (!running) void run();
    };
  };
  const newestFirst = new Heap<L>((a, b) => options.createdAtOf(b) - options.createdAtOf(a));
  const fresh = lane({
    push: (link) => newestFirst.push(link),
    shift: () => newestFirst.pop(),
    isEmpty: () => newestFirst.isEmpty(),
  });
  const backlog = lane(new Denque<L>());

  return {
    add(link, isFresh) {
      pending++;
      (isFresh ? fresh : backlog)(link);
    },
    stop() {
      stopping.abort();
    },
    get pending() {
      return pending;
    },
  };
}

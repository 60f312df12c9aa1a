import { LRUCache } from 'lru-cache';
import type { EnterHost } from '../fetch/fetch-page';
import type { PreviewAttempt, PreviewOutcome } from './fetch-preview';
import { createFetchScheduler, type FetchScheduler, type QueuedFetch } from './fetch-scheduler';

/** Where a link's preview came from: fetched for it, shared with a fetch under way, or remembered. */
export type PreviewSource = 'fetch' | 'shared' | 'cache';

export interface SharedPreviewsOptions<L> {
  /** How long a destination's preview is reused for other links to it. */
  cacheMs: number;
  /** A failure is reused for at most this long, so a site that was down is asked again soon. */
  failureCacheMs: number;
  /** The cache's bound, in (estimated) bytes: the oldest previews go first. */
  maxCacheBytes: number;
  /** Fetches at once, in all and per host, and how long a link counts as fresh (see createFetchScheduler). */
  concurrency: number;
  perHostConcurrency: number;
  freshMs: number;
  now?: () => number;
  /**
   * One attempt at a destination (see attemptPreview); a rejection is
   * recorded as an `internal_error` failure. `enterHost` moves the fetch to a
   * slot on the host a redirect goes to (see `FetchScheduler.moveTo`).
   */
  attempt: (url: string, attempt: number, enterHost: EnterHost) => Promise<PreviewAttempt>;
  /** Gets a destination's outcome with the links that waited for it (or one link, remembered), once each. */
  deliver: (links: readonly L[], outcome: PreviewOutcome, url: string) => void;
  /** Gets the links still waiting when `stop` is called. */
  abandon: (links: readonly L[]) => void;
  /** Told where each link's preview came from (the metrics). */
  onPreview?: (source: PreviewSource) => void;
}

export interface SharedPreviews<L> {
  /**
   * Asks for the preview of `url` for `link`, created at `createdAt` (ms) in
   * `account`: delivered at once if remembered from a recent fetch, else when
   * the fetch of it under way, or started for it in the scheduler's order
   * (counted against the share of the account that asked first), ends. After
   * `stop`, the link is abandoned at once.
   */
  request(url: string, createdAt: number, link: L, account: string): void;
  /** Abandons every link waiting, and starts no more fetches. */
  stop(): void;
  /** Destinations being fetched or waiting for their turn (or a retry). */
  readonly destinations: number;
}

/**
 * One destination's fetch and the links waiting for it. Queued, it is this
 * plain object and its scheduler entry: no promise nor timer until its turn
 * comes, since a backlog may hold one for each of a hundred thousand links.
 */
interface Job<L> {
  url: string;
  links: L[];
  /** The newest waiting link's creation: the fetch's place in line. */
  createdAt: number;
  attempts: number;
  /** The account whose link asked first: the fetch counts against its share of the slots. */
  account: string;
  /** Its place in the scheduler, while it waits or runs; none during a retry's backoff. */
  queued: QueuedFetch<Job<L>> | undefined;
  backoff: NodeJS.Timeout | undefined;
}

/** The host a destination's fetch counts against first (`host:port`); a redirect moves it to its own. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

const outcomeBytes = (outcome: PreviewOutcome): number =>
  256 +
  2 *
    (outcome.kind === 'fetched'
      ? outcome.finalUrl.length +
        (outcome.title?.length ?? 0) +
        (outcome.description?.length ?? 0) +
        (outcome.image?.length ?? 0)
      : outcome.reason.length);

function internalFailure(err: unknown, attempts: number): PreviewOutcome {
  const text = err instanceof Error ? err.message : String(err);
  return { kind: 'failed', code: 'internal_error', reason: `internal_error: ${text}`.slice(0, 500), attempts };
}

/**
 * One fetch per destination, whatever the number of links to it: links to a
 * destination being fetched wait for that fetch, and its outcome is kept
 * (`cacheMs`, failures `failureCacheMs`) for the links that come after. Each
 * attempt of a fetch takes its turn in the scheduler, so a retry's backoff
 * holds no slot.
 */
export function createSharedPreviews<L>(options: SharedPreviewsOptions<L>): SharedPreviews<L> {
  const cache = new LRUCache<string, PreviewOutcome>({
    maxSize: options.maxCacheBytes,
    sizeCalculation: (outcome, url) => outcomeBytes(outcome) + 2 * url.length,
    ttl: options.cacheMs,
    // The cache's clock is the scheduler's, so both age a preview alike (and a test can move them on),
    // read afresh every time rather than once a millisecond.
    ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
  });
  const jobs = new Map<string, Job<L>>();
  let stopped = false;
  const tell = options.onPreview ?? (() => undefined);

  const scheduler: FetchScheduler<Job<L>> = createFetchScheduler<Job<L>>({
    concurrency: options.concurrency,
    perHostConcurrency: options.perHostConcurrency,
    freshMs: options.freshMs,
    now: options.now,
    start: (fetch) => {
      const job = fetch.item;
      if (stopped) return scheduler.done(fetch); // its links were abandoned
      const attempt = ++job.attempts;
      const enterHost: EnterHost = (host, signal) => scheduler.moveTo(fetch, host, signal);
      void options.attempt(job.url, attempt, enterHost).then(
        (result) => ended(job, fetch, result),
        (err: unknown) => ended(job, fetch, internalFailure(err, attempt)),
      );
    },
  });

  const enqueue = (job: Job<L>) => {
    job.queued = scheduler.schedule(hostOf(job.url), job.createdAt, job, job.account);
  };

  function ended(job: Job<L>, fetch: QueuedFetch<Job<L>>, result: PreviewAttempt): void {
    scheduler.done(fetch);
    job.queued = undefined;
    if (stopped) return; // its links were abandoned
    if (result.kind === 'retry') {
      job.backoff = setTimeout(() => {
        job.backoff = undefined;
        if (!stopped) enqueue(job);
      }, result.afterMs);
      return;
    }
    jobs.delete(job.url);
    const ttl = result.kind === 'failed' ? Math.min(options.cacheMs, options.failureCacheMs) : options.cacheMs;
    if (ttl > 0) cache.set(job.url, result, { ttl });
    options.deliver(job.links, result, job.url);
  }

  return {
    request(url, createdAt, link, account) {
      if (stopped) return options.abandon([link]);
      const cached = cache.get(url);
      if (cached) {
        tell('cache');
        return options.deliver([link], cached, url);
      }
      const running = jobs.get(url);
      if (running) {
        tell('shared');
        running.links.push(link);
        if (createdAt > running.createdAt) {
          running.createdAt = createdAt;
          if (running.queued) scheduler.promote(running.queued, createdAt);
        }
        return;
      }
      tell('fetch');
      const job: Job<L> = {
        url,
        links: [link],
        createdAt,
        attempts: 0,
        account,
        queued: undefined,
        backoff: undefined,
      };
      jobs.set(url, job);
      enqueue(job);
    },
    stop() {
      stopped = true;
      const waiting = [...jobs.values()];
      jobs.clear();
      for (const job of waiting) {
        clearTimeout(job.backoff);
        options.abandon(job.links);
      }
    },
    get destinations() {
      return jobs.size;
    },
  };
}

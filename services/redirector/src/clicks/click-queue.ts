import { summarizedReport } from '@shortlink/batching';

export interface QueueLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What became of a batch that was sent: the clicks left out of it, if any, and why the first was. */
export interface SentBatch {
  rejected: number;
  rejection?: unknown;
}

export interface ClickQueueOptions<T> {
  /**
   * Sends a batch; resolves once Kafka acknowledged it. A failed batch is sent
   * again as it is. A click that cannot be written as an event is left out by
   * the sender, which says so, rather than failing its batch for ever.
   */
  send: (items: T[]) => Promise<SentBatch | void>;
  /** Most clicks held in memory; beyond it new clicks are dropped and counted. */
  capacity: number;
  maxBatch: number;
  flushIntervalMs: number;
  logger: QueueLogger;
}

export interface ClickQueueStats {
  queued: number;
  sent: number;
  dropped: number;
  /** Left out of their batch: they could not be written as events (a bug, logged), so they are never sent. */
  rejected: number;
  failedSends: number;
}

const DROP_REPORT_MS = 5000;

/**
 * A bounded in-memory queue between the redirect handler and Kafka. `push` is
 * O(1) and never throws or waits: a slow or absent Kafka costs memory up to
 * `capacity`, then dropped (and counted) clicks, never a slower redirect.
 * A retried batch is the same clicks: a click's event id is fixed when it is
 * captured (click-event-id.ts), so a resend is the same events, which
 * consumers deduplicate.
 */
export class ClickQueue<T> {
  readonly #options: ClickQueueOptions<T>;
  #pending: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerDelay = 0;
  /** True from a drain's start until it returns: set and cleared synchronously, unlike `#flushing`. */
  #draining = false;
  #flushing: Promise<void> | undefined;
  /** Ends the drain's wait between two sends early: a batch filled, a flush was asked for, or the queue closes. */
  #wake: (() => void) | undefined;
  /** Set by an explicit flush: the drain in progress stops waiting between sends until it ends. */
  #hurry = false;
  #stopped = false;
  /**
   * A dropped click is lost for good: said at once, then every 5 s while
   * clicks are dropped, with how many since, so an operator reading the logs
   * sees them all, a burst shorter than 5 s included.
   */
  readonly #drops = summarizedReport<'stopped' | 'full'>(DROP_REPORT_MS, (dropped, reason) =>
    this.#options.logger.error({ dropped, reason, capacity: this.#options.capacity }, 'clicks dropped'),
  );
  readonly stats: ClickQueueStats = { queued: 0, sent: 0, dropped: 0, rejected: 0, failedSends: 0 };

  constructor(options: ClickQueueOptions<T>) {
    this.#options = options;
  }

  push(item: T): void {
    if (this.#stopped || this.#pending.length >= this.#options.capacity) {
      this.stats.dropped++;
      this.#drops.add(this.#stopped ? 'stopped' : 'full');
      return;
    }
    this.#pending.push(item);
    this.stats.queued++;
    // A drain in progress takes this click with the next batch; no timer needed.
    if (this.#draining) {
      if (this.depth >= this.#options.maxBatch) this.#wake?.();
      return;
    }
    if (this.#pending.length >= this.#options.maxBatch) this.#schedule(0);
    else this.#schedule(this.#options.flushIntervalMs);
  }

  get depth(): number {
    return this.#pending.length;
  }

  #schedule(delayMs: number): void {
    // On the redirect path: re-arm a timer only to make it sooner.
    if (this.#timer && (delayMs > 0 || this.#timerDelay === 0)) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDelay = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, delayMs);
  }

  /** Sends what is queued, one batch at a time; failed batches stay queued and are retried. */
  flush(): Promise<void> {
    if (this.#flushing) {
      this.#hurry = true;
      this.#wake?.();
      return this.#flushing;
    }
    this.#flushing = this.#drain().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /**
   * Under steady traffic a drain would send whatever arrived during the last
   * round trip, a few clicks a request, and the broker's and client's cost is
   * per request. Like Kafka's `linger.ms`, the drain sends at most one batch
   * per flush interval unless a batch is full: a click waits at most the
   * interval, as the first one does
   * (docs/decisions/0003-click-queue-lingers-one-flush-interval.md).
   */
  async #lingerAfter(sentAt: number): Promise<void> {
    const wait = sentAt + this.#options.flushIntervalMs - Date.now();
    if (wait <= 0 || this.#hurry || this.#stopped || this.depth >= this.#options.maxBatch) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), wait);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    // `finally` runs as the loop returns, in the same step: no click pushed after
    // the last check can find `#draining` still set and wait for a timer never armed.
    try {
      let backoff = 100;
      for (;;) {
        if (this.#pending.length === 0) return;
        const batch = this.#pending.slice(0, this.#options.maxBatch);
        const sentAt = Date.now();
        try {
          const outcome = await this.#options.send(batch);
          this.#pending = this.#pending.slice(batch.length);
          const rejected = outcome?.rejected ?? 0;
          this.stats.sent += batch.length - rejected;
          if (rejected > 0) {
            this.stats.rejected += rejected;
            this.#options.logger.error(
              { err: outcome?.rejection, rejected, sent: batch.length - rejected },
              'clicks that could not be written as events were left out of their batch',
            );
          }
          backoff = 100;
          if (this.depth > 0) await this.#lingerAfter(sentAt);
        } catch (err) {
          this.stats.failedSends++;
          this.#options.logger.warn({ err, queued: this.depth }, 'click batch not acknowledged; retrying');
          if (this.#stopped) return;
          await new Promise((r) => setTimeout(r, backoff));
          backoff = Math.min(backoff * 2, 5000);
        }
      }
    } finally {
      this.#draining = false;
      this.#hurry = false;
    }
  }

  /** Stops taking clicks and sends what is queued, within the time allowed. */
  async close(timeoutMs: number): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake?.();
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
    const outcome = await Promise.race([this.flush().then(() => 'done' as const), timeout]);
    if (outcome === 'timeout' || this.depth > 0) {
      this.#options.logger.error({ lost: this.depth }, 'clicks could not be sent before shutdown');
    }
    this.#drops.flush();
    // The process's last word on its clicks: every one taken was sent, or this says how many were not.
    this.#options.logger.info({ ...this.stats, unsent: this.depth }, 'click queue closed');
  }
}

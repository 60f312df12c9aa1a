import type { FoldedPayload } from './write-folded-batch';

export interface QueuedBatch {
  batch: FoldedPayload;
  /** The partition the batch came from, and the offset after its last record once the batch is the last of its fetch. */
  partition: number;
  next?: bigint;
  /** Records of the fetch that were not events (dead letters to the live projector). */
  skipped: number;
}

/**
 * Writes folded batches one at a time, in the order they were queued: a
 * partition's batches, and so a slug's events, reach Postgres in topic order,
 * while the consumer decodes and folds the next fetch. Remembers how far each
 * partition has been written.
 */
export class WriteQueue {
  readonly written = new Map<number, bigint>();
  applied = 0;
  skipped = 0;
  private readonly queue: QueuedBatch[] = [];
  private writing: Promise<void> | undefined;
  private paused = false;
  private closed = false;
  private failure: Error | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly write: (batch: FoldedPayload) => Promise<void>,
    /** Batches queued beyond this wait for room: memory stays bounded whatever the fetch size. */
    private readonly depth = 2,
  ) {}

  /** Queues a batch; waits while the queue is full, calling `heartbeat` every few seconds meanwhile. */
  async push(item: QueuedBatch, heartbeat: () => Promise<void>): Promise<void> {
    this.check();
    if (this.closed) return;
    this.queue.push(item);
    this.pump();
    while (this.queue.length >= this.depth && !this.closed) {
      await this.changed(3000);
      this.check();
      await heartbeat();
    }
  }

  /** Resolves once every partition in `ends` is written up to its offset (rejects on a write failure, or after `timeoutMs`). */
  async reached(ends: Map<number, bigint>, timeoutMs = Infinity): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.check();
      if ([...ends].every(([partition, end]) => (this.written.get(partition) ?? -1n) >= end)) return;
      if (Date.now() > deadline) throw new Error('the rebuild did not catch up with the topic in time');
      await this.changed(Math.min(1000, deadline - Date.now()));
    }
  }

  /** Stops writing after the batch in hand; queued batches wait for `resume`. */
  async pause(): Promise<void> {
    this.paused = true;
    await this.writing;
    this.check();
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Stops for good after the batch in hand: whatever is queued or pushed later is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.writing;
    this.check();
    this.notify();
  }

  private pump(): void {
    if (this.writing || this.paused || this.closed || this.failure !== undefined) return;
    const item = this.queue.shift();
    if (!item) return;
    this.writing = (async () => {
      try {
        await this.write(item.batch);
        this.applied += item.batch.events;
        this.skipped += item.skipped;
        if (item.next !== undefined && item.next > (this.written.get(item.partition) ?? -1n)) {
          this.written.set(item.partition, item.next);
        }
      } catch (e) {
        this.failure = e instanceof Error ? e : new Error(String(e));
      } finally {
        this.writing = undefined;
        this.notify();
        this.pump();
      }
    })();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private notify(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  private changed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }
}

/**
 * Several WriteQueues, each on its own connection, a partition always on the
 * same one: a slug's events keep their order (a slug lives in one partition)
 * while Postgres writes partitions in parallel.
 */
export class WriteLanes {
  constructor(private readonly lanes: WriteQueue[]) {}

  private lane(partition: number): WriteQueue {
    return this.lanes[partition % this.lanes.length]!;
  }

  get applied(): number {
    return this.lanes.reduce((n, lane) => n + lane.applied, 0);
  }

  get skipped(): number {
    return this.lanes.reduce((n, lane) => n + lane.skipped, 0);
  }

  push(item: QueuedBatch, heartbeat: () => Promise<void>): Promise<void> {
    return this.lane(item.partition).push(item, heartbeat);
  }

  async reached(ends: Map<number, bigint>, timeoutMs = Infinity): Promise<void> {
    await Promise.all(
      this.lanes.map((lane, i) =>
        lane.reached(new Map([...ends].filter(([p]) => p % this.lanes.length === i)), timeoutMs),
      ),
    );
  }

  async pause(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.pause()));
  }

  resume(): void {
    for (const lane of this.lanes) lane.resume();
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

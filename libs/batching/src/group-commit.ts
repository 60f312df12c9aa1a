export interface GroupCommitOptions<T = unknown> {
  /** Most items in one batch; with `sizeOf`, the most of their sizes added up. */
  maxBatch: number;
  /**
   * An item's share of `maxBatch` (1 by default), for items that carry work
   * of their own (a partition's batch of clicks). A batch takes at least one
   * item, so an item larger than `maxBatch` leaves alone, never refused.
   */
  sizeOf?: (item: T) => number;
  /**
   * Let the items submitted in one turn of the event loop leave together even
   * when idle: the first batch starts on the next turn, not at once. For
   * callers that hand over their items one by one but at the same moment (the
   * partitions of one fetch); `all` does the same for one caller's items.
   */
  gatherTurn?: boolean;
  /**
   * What a failed batch means for its items.
   * - `retry-alone`, for a batch that takes effect whole or not at all (one statement): each item runs again on its
   *   own, so an item that poisons the batch fails only itself.
   * - `fail-all`, for a batch whose failure is no one item's, or that may have taken effect in part (a produce
   *   request): every item fails with its error, so items must be checked before they join.
   */
  onFailure: 'retry-alone' | 'fail-all';
  /**
   * Batches under way at once (default 1). More lets a store with room to
   * spare (a Postgres that runs statements side by side) take the next batch
   * before the last one has come back; items still leave in arrival order.
   * Keep 1 where order across batches matters (appends of one key).
   */
  maxInFlight?: number;
}

/** Submits one item; `all` submits several of one caller at once. */
export interface GroupCommit<T, R> {
  (item: T): Promise<R>;
  /**
   * Queues the items together, so that they leave in one batch (as far as
   * `maxBatch` allows) even when idle, where one call after another would send
   * the first alone. Each item still settles on its own, as if submitted alone.
   */
  all(items: readonly T[]): Promise<R>[];
}

/**
 * Concurrent calls share one batch: while a batch is in flight, the items that
 * arrive queue up and leave together in the next one (a group commit, with no
 * added delay when idle). `run` answers each item of a batch in order.
 */
export function groupCommit<T, R>(
  run: (items: T[]) => Promise<R[]>,
  options: GroupCommitOptions<T>,
): GroupCommit<T, R> {
  type Waiting = { item: T; resolve: (r: R) => void; reject: (e: unknown) => void };
  const maxInFlight = Math.max(1, options.maxInFlight ?? 1);
  let waiting: Waiting[] = [];
  let inFlight = 0;
  let drainScheduled = false;

  async function runAlone(w: Waiting): Promise<void> {
    try {
      const [result] = await run([w.item]);
      w.resolve(result as R);
    } catch (e) {
      w.reject(e);
    }
  }

  async function runBatch(batch: Waiting[]): Promise<void> {
    try {
      const results = await run(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i] as R));
    } catch (e) {
      if (options.onFailure === 'retry-alone' && batch.length > 1) {
        for (const w of batch) await runAlone(w);
      } else {
        for (const w of batch) w.reject(e);
      }
    }
  }

  /** The next batch: the waiting items, in order, up to `maxBatch` (by `sizeOf`), and at least one. */
  function takeBatch(): Waiting[] {
    const { sizeOf } = options;
    if (!sizeOf) return waiting.slice(0, options.maxBatch);
    let count = 0;
    for (let size = 0; count < waiting.length; count++) {
      size += sizeOf((waiting[count] as Waiting).item);
      if (count > 0 && size > options.maxBatch) break;
    }
    return waiting.slice(0, count);
  }

  /** Starts batches while there are items and a free slot; each slot, once free, takes the next. */
  function drain(): void {
    while (waiting.length > 0 && inFlight < maxInFlight) {
      const batch = takeBatch();
      waiting = waiting.slice(batch.length);
      inFlight++;
      void runBatch(batch).finally(() => {
        inFlight--;
        drain();
      });
    }
  }

  const enqueue = (item: T) => new Promise<R>((resolve, reject) => waiting.push({ item, resolve, reject }));
  const drainSoon = () => {
    if (!options.gatherTurn) return drain();
    if (drainScheduled) return;
    drainScheduled = true;
    setImmediate(() => {
      drainScheduled = false;
      drain();
    });
  };
  const submit = (item: T): Promise<R> => {
    const result = enqueue(item);
    drainSoon();
    return result;
  };
  return Object.assign(submit, {
    all(items: readonly T[]): Promise<R>[] {
      const results = items.map(enqueue);
      drain();
      return results;
    },
  });
}

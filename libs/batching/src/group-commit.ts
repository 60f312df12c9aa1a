export interface GroupCommitOptions {
  /** Most items in one batch. */
  maxBatch: number;
  /**
   * What a failed batch means for its items.
   * - `retry-alone`, for a batch that takes effect whole or not at all (one
   *   Postgres statement): each item runs again on its own, so an item that
   *   poisons the batch fails only itself and its neighbours still succeed.
   * - `fail-all`, for a batch whose failure is not any one item's (callers
   *   sharing a round trip with no item of their own), or that may have taken
   *   effect in part (a produce request): every item fails with its error.
   *   Items must then be checked before they join, so none can poison it.
   */
  onFailure: 'retry-alone' | 'fail-all';
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
export function groupCommit<T, R>(run: (items: T[]) => Promise<R[]>, options: GroupCommitOptions): GroupCommit<T, R> {
  type Waiting = { item: T; resolve: (r: R) => void; reject: (e: unknown) => void };
  let waiting: Waiting[] = [];
  let running = false;

  async function runAlone(w: Waiting): Promise<void> {
    try {
      const [result] = await run([w.item]);
      w.resolve(result as R);
    } catch (e) {
      w.reject(e);
    }
  }

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, options.maxBatch);
      waiting = waiting.slice(batch.length);
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
    running = false;
  }

  const enqueue = (item: T) => new Promise<R>((resolve, reject) => waiting.push({ item, resolve, reject }));
  const submit = (item: T): Promise<R> => {
    const result = enqueue(item);
    if (!running) void drain();
    return result;
  };
  return Object.assign(submit, {
    all(items: readonly T[]): Promise<R>[] {
      const results = items.map(enqueue);
      if (!running && items.length > 0) void drain();
      return results;
    },
  });
}

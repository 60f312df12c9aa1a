/**
 * Concurrent calls share one batch: while a batch is in flight, the items that
 * arrive queue up and leave together in the next one (a group commit, with no
 * added delay when idle). `run` answers each item of a batch in order; if it
 * throws, every call in that batch fails with its error.
 */
export function groupCommit<T, R>(run: (items: T[]) => Promise<R[]>, maxBatch: number): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        const results = await run(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i] as R));
      } catch (e) {
        for (const w of batch) w.reject(e);
      }
    }
    running = false;
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!running) void drain();
    });
}

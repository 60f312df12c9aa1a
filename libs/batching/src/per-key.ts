/**
 * Per key, at most `limit` calls at work at once; the others wait and start
 * in the order they came, as calls end, however they end. Each keeps its own
 * outcome.
 */
export function concurrencyPerKey(limit: number): <R>(key: string, work: () => Promise<R>) => Promise<R> {
  const keys = new Map<string, { running: number; waiting: (() => void)[] }>();
  const release = (key: string): void => {
    const state = keys.get(key);
    if (!state) return;
    const next = state.waiting.shift();
    if (next) next();
    else if (--state.running === 0) keys.delete(key);
  };
  return async (key, work) => {
    let state = keys.get(key);
    if (!state) keys.set(key, (state = { running: 0, waiting: [] }));
    if (state.running < limit) state.running++;
    // The slot passes straight to the next waiter: `running` stays as it is.
    else await new Promise<void>((resolve) => state.waiting.push(resolve));
    try {
      return await work();
    } finally {
      release(key);
    }
  };
}

/**
 * Per key, calls that take turns: each starts once the call before it for
 * that key has ended, however it ended, and keeps its own outcome.
 */
export function turnsPerKey(): <R>(key: string, work: () => Promise<R>) => Promise<R> {
  return concurrencyPerKey(1);
}

/**
 * Per key, one run at a time, shared by the callers who ask while it is under
 * way. A run is the `run` of the call that starts it.
 */
export interface SingleFlight<R> {
  /** The run under way for the key, or a new one. */
  join(key: string, run: () => Promise<R>): Promise<R>;
  /**
   * A run that starts after this call (the one under way may have read what
   * the caller has just changed): the next one, shared by every caller who
   * asks for it while the current one is under way.
   */
  fresh(key: string, run: () => Promise<R>): Promise<R>;
  /** Whatever is under way for the key stops being shared: the next call starts a run. */
  forget(key: string): void;
  forgetAll(): void;
}

export function singleFlightPerKey<R>(): SingleFlight<R> {
  const current = new Map<string, Promise<R>>();
  const next = new Map<string, Promise<R>>();

  function join(key: string, run: () => Promise<R>): Promise<R> {
    const underWay = current.get(key);
    if (underWay) return underWay;
    const started = run().finally(() => {
      if (current.get(key) === started) current.delete(key);
    });
    current.set(key, started);
    return started;
  }

  return {
    join,
    fresh(key, run) {
      const underWay = current.get(key);
      if (!underWay) return join(key, run);
      let after = next.get(key);
      if (!after) {
        after = underWay
          .catch(() => undefined)
          .then(() => {
            next.delete(key);
            return join(key, run);
          });
        next.set(key, after);
      }
      return after;
    },
    forget: (key) => void current.delete(key),
    forgetAll: () => current.clear(),
  };
}

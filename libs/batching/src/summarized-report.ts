/**
 * Events worth a log line that can come by the thousand (clicks dropped, link
 * changes that waited for a lease): the first is said at once, the rest at
 * most every `everyMs` with how many since, so a burst is said whole in a few
 * lines rather than a line each, and none goes unsaid (the last window is
 * said when it ends, or on `flush`). `say` gets the count and the context of
 * the latest event.
 */
export interface SummarizedReport<C> {
  add(context: C): void;
  /** Says what is unsaid now (a stop). */
  flush(): void;
}

export function summarizedReport<C>(
  everyMs: number,
  say: (count: number, latest: C) => void,
  now: () => number = () => Date.now(),
): SummarizedReport<C> {
  let unsaid = 0;
  let latest: C | undefined;
  let lastSaid = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (unsaid === 0) return;
    say(unsaid, latest as C);
    unsaid = 0;
    lastSaid = now();
  };
  return {
    add(context) {
      unsaid++;
      latest = context;
      const wait = everyMs - (now() - lastSaid);
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait).unref();
    },
    flush,
  };
}

import { concurrencyPerKey, singleFlightPerKey, turnsPerKey } from '@shortlink/batching';
import { DependencyTimeout } from '@shortlink/http';
import type { AccountConnectionLimit } from './account-connection-limit';
import type { LinkChangeStore } from './link-change-store';

/**
 * A link's changes take turns in the process's memory, not on its row lock, and the publishes asked for while one
 * runs share the next run (a caller waits for two at most): a crowd on one link holds one connection, not the pool.
 * A change takes its account's connection limit (account-connection-limit.ts) only once it is its link's turn; at most `publishesAtOnce` publishes hold a
 * connection while the log appends. A change or publish not started within `startWithinMs` is answered as an outage
 * and never runs, so a queue behind a stalled Postgres does not hold its last caller for the sum of the waits
 * (docs/decisions/0057-link-changes-one-at-a-time.md, docs/decisions/0029-appends-hold-a-third-of-the-pool.md).
 */
export function serializedLinkChanges(
  store: LinkChangeStore,
  share?: AccountConnectionLimit,
  {
    startWithinMs,
    publishesAtOnce,
    publishStartWithinMs = startWithinMs,
  }: { startWithinMs?: number; publishesAtOnce?: number; publishStartWithinMs?: number } = {},
): LinkChangeStore {
  const changeTurn = turnsPerKey();
  const publishes = singleFlightPerKey<number>();
  const publishPlace = publishesAtOnce === undefined ? undefined : concurrencyPerKey(publishesAtOnce);
  return {
    change: (slug, decide, { accountId } = {}) => {
      // One bound from the change's arrival to its COMMIT: its turn, its connection and its statements share it.
      const commitBy = startWithinMs === undefined ? undefined : Date.now() + startWithinMs;
      return startWithin(
        startWithinMs,
        'Postgres',
        (run) => changeTurn(slug, () => (share && accountId !== undefined ? share(accountId, run) : run())),
        () => store.change(slug, decide, { accountId, commitBy }),
      );
    },
    publish: (slug, append) =>
      publishes.fresh(slug, () =>
        startWithin(
          publishStartWithinMs,
          'the event log',
          (run) => (publishPlace ? publishPlace('', run) : run()),
          () => store.publish(slug, append),
        ),
      ),
  };
}

/**
 * Runs `work` through `queue` if its place comes within `ms`; otherwise
 * rejects at `ms` (`waitingOn` did not answer in time) and skips it when it comes.
 */
function startWithin<R>(
  ms: number | undefined,
  waitingOn: string,
  queue: (run: () => Promise<R>) => Promise<R>,
  work: () => Promise<R>,
): Promise<R> {
  if (ms === undefined) return queue(work);
  let withdrawn = false;
  return new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      withdrawn = true;
      reject(new DependencyTimeout(waitingOn, ms));
    }, ms);
    // Settling an already rejected promise is a no-op: a withdrawn caller hears nothing more.
    queue(() => {
      clearTimeout(timer);
      return withdrawn ? Promise.reject(new DependencyTimeout(waitingOn, ms)) : work();
    })
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}

import { concurrencyPerKey, singleFlightPerKey, turnsPerKey } from '@shortlink/batching';
import { DependencyTimeout } from '@shortlink/http';
import type { AccountConnectionLimit } from './account-connection-limit';
import type { LinkChangeStore } from './link-change-store';

/**
 * In one process, a link's changes take turns in memory instead of on its row
 * lock, and its publishes are shared. Each waiter on the row lock holds one of
 * the pool's connections: 40 changes of one link at once took all of them, the
 * holder's publish then waited 5 s for a connection and its change was
 * answered 503, however well Kafka was doing (an audit: 988 of 2,400
 * concurrent PATCHes over 60 links). Now a process has at most one change and
 * one publish of a link at Postgres at a time.
 *
 * A publish appends every event of the link waiting in the outbox, so one run
 * that starts after a change committed carries that change's event: a publish
 * asked for while one runs joins the next run (the running one may have read
 * the outbox before this change was in it), and every caller who joined it
 * gets its outcome. So a caller waits for at most two runs, whatever the
 * crowd, even while the log is failing each of them.
 *
 * A change takes its account's share (see account-connection-limit.ts) once it is the
 * link's turn, not before: a change waiting behind others of its link holds
 * none of it, so a crowd on a few links does not stop the account's other
 * links.
 *
 * `publishesAtOnce`: a publish holds a database connection, and its link's
 * row, for as long as the event log takes to append (up to the append's
 * deadline), so while the log is down every change committed goes on
 * holding one. At five changes a second a process's ten connections were
 * all held so, and its creates and other changes waited for one until they
 * were answered 503 "Postgres did not answer" (`npm run chaos`, kafka-kill,
 * 2026-11-29). At most this many publishes are at work at once; the others
 * wait in the process.
 *
 * `startWithinMs`: a change whose turn (and share) did not come within it is
 * answered as an outage and withdrawn, so it never runs: the changes ahead
 * of it wait on a Postgres that does not answer, each up to its statements'
 * bound, and a crowd of them would otherwise hold the last caller for the
 * sum. A change that started has what is left of it for its connection and
 * statements (the store's `commitBy`). So is a publish that waited
 * `publishStartWithinMs` (by default as long) for its place: its change is
 * committed and its event stays in the outbox, for the link's next publish
 * or the outbox relay.
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

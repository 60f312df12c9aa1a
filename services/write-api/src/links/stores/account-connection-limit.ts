import { concurrencyPerKey } from '@shortlink/batching';

/** Runs an account's change when its share of the process allows (see accountConnectionLimit). */
export type AccountConnectionLimit = <R>(accountId: string, work: () => Promise<R>) => Promise<R>;

/**
 * One account's link changes have at most half of a process's database
 * connections at work at once; its others wait in the process, in order.
 * Without it, one integrator's crowd of `PATCH`es queued for every
 * connection: another account's create, 12 ms alone, took 550-800 ms at the
 * median while 2,400 changes of one account were under way
 * (docs/performance.md, "One account's crowd of changes"). Half, so that a
 * crowd keeps its speed and every other account still finds connections.
 *
 * Creates are not held to it: they share their round trips (one claim
 * statement and one append for many), so a crowd of them takes few
 * connections, and a share would only make their batches smaller.
 */
export function accountConnectionLimit(poolSize: number): AccountConnectionLimit {
  return concurrencyPerKey(Math.max(1, Math.floor(poolSize / 2)));
}

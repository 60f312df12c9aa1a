import { concurrencyPerKey } from '@shortlink/batching';

/** Runs an account's change when its share of the process allows (see accountConnectionLimit). */
export type AccountConnectionLimit = <R>(accountId: string, work: () => Promise<R>) => Promise<R>;

/**
 * One account's link changes have at most half of a process's database connections at work at once; its others wait in
 * the process, in order. Half, so that one integrator's crowd of `PATCH`es keeps its speed and every other account
 * still finds connections. Creates are not held to it: they share their round trips, so a crowd of them takes few
 * connections, and a share would only make their batches smaller (docs/decisions/0057-link-changes-one-at-a-time.md).
 */
export function accountConnectionLimit(poolSize: number): AccountConnectionLimit {
  return concurrencyPerKey(Math.max(1, Math.floor(poolSize / 2)));
}

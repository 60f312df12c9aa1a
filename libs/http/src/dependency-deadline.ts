/**
 * A dependency that did not answer within the time a request may wait for it:
 * a store that stalls (frozen, partitioned away, failing over) rather than one
 * that refuses, which fails fast on its own. An outage (isDependencyOutage).
 */
export class DependencyTimeout extends Error {
  constructor(
    readonly dependency: string,
    readonly afterMs: number,
  ) {
    super(`${dependency} did not answer within ${afterMs} ms`);
    this.name = 'DependencyTimeout';
  }
}

/**
 * The work's answer, or a DependencyTimeout once `ms` have passed without one.
 * The work itself goes on (a query is not withdrawn by this): the caller stops
 * waiting for it, so give the work a bound of its own where it holds something.
 */
export function answerWithin<T>(work: Promise<T>, ms: number, dependency: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyTimeout(dependency, ms)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

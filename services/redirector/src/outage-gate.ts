import { groupCommit } from '@shortlink/batching';
import type { LookupLink } from './resolved-link';

export interface OutageGateOptions {
  /** One round trip to the store (a `SELECT 1`): resolves when it answers, rejects when it cannot be reached. */
  probe: () => Promise<unknown>;
  /** Whether a failed lookup says the store is away (rather than this one query wrong). */
  isOutage: (error: unknown) => boolean;
  /** Called when a probe finds the store back after an outage. */
  onStoreBack?: () => void;
}

/** A lookup behind the gate, and whether the gate holds the store for away now (for metrics). */
export interface GatedLookup {
  lookup: LookupLink;
  storeAway: () => boolean;
}

/**
 * While Postgres is away, one connection attempt answers for every lookup.
 *
 * Without the gate, each lookup of a redirect the cache cannot answer alone
 * (every one, while the change listener has lost Postgres) opens a connection
 * of its own: at 1,000 redirects a second over a few hundred slugs, a queue of
 * connection attempts behind the pool's ten, each a refused socket or a
 * backend forked only to say "shutting down", and redirects waited seconds
 * for the failure that lets them answer from memory (chaos runs, docs/chaos.md).
 *
 * Once a lookup fails for an outage, the lookups that follow wait for one
 * shared probe that starts after they arrived (never one already under way,
 * which may predate the store's return), so a failure still means "Postgres
 * could not be reached after this request came", as the cache's revalidation
 * requires. The probe failing fails them all at once; it succeeding opens the
 * gate and each runs its own lookup.
 */
export function gateLookupsThroughOutages(lookup: LookupLink, options: OutageGateOptions): GatedLookup {
  let away = false;
  const probe = groupCommit(
    async (callers: unknown[]) => {
      await options.probe();
      return callers.map(() => undefined);
    },
    { maxBatch: Number.POSITIVE_INFINITY, onFailure: 'fail-all' },
  );
  return {
    storeAway: () => away,
    lookup: async (slug) => {
      if (away) {
        await probe(undefined);
        if (away) {
          away = false;
          options.onStoreBack?.();
        }
      }
      try {
        return await lookup(slug);
      } catch (error) {
        if (options.isOutage(error)) away = true;
        throw error;
      }
    },
  };
}

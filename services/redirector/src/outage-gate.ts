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
 * While Postgres is away, one connection attempt answers for every lookup, rather than a queue of attempts that makes
 * redirects wait seconds for the failure that lets them answer from memory. Once a lookup fails for an outage, the
 * lookups that follow wait for one shared probe started after they arrived (never one already under way), so a failure
 * still means "Postgres could not be reached after this request came", as revalidation requires. The probe failing
 * fails them all; it succeeding opens the gate (docs/decisions/0025-the-outage-gate.md).
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

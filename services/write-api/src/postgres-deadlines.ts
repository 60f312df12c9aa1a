import { answerWithin } from '@shortlink/http';
import type { IdempotencyStore } from './idempotency/idempotency-store';
import type { Claim, ClaimStore, PostgresClaimStore } from './links/stores/claims';

/**
 * How long a write waits for Postgres, so that a stalled Postgres does not hold every write until the entry point's
 * 504. Before anything is durable (key taken, slug claimed, a change's turn and statements), a wait past
 * `beforeDurableMs` is an outage: 503, nothing done, and what lands later is given back or left for a retry. A change's
 * COMMIT unanswered within it is "may or may not be saved". Once the event is in the log, bookkeeping waits
 * `afterDurableMs` at most and the answer goes; the claim's commit and the key's outcome finish behind it
 * (docs/decisions/0027-write-deadlines-on-postgres.md).
 */
export const POSTGRES_WRITE_DEADLINES = { beforeDurableMs: 3000, afterDurableMs: 1000 } as const;

const { beforeDurableMs, afterDurableMs } = POSTGRES_WRITE_DEADLINES;
const before = <T>(work: Promise<T>) => answerWithin(work, beforeDurableMs, 'Postgres');
const after = <T>(work: Promise<T>) => answerWithin(work, afterDurableMs, 'Postgres');

/**
 * `before`, for a step that takes something (a key, a slug): the caller is
 * answered 503 at the deadline and has gone, so what the step took once
 * Postgres woke is handed to `giveBack` at once rather than held for nobody.
 */
function beforeOrGiveBack<T>(work: Promise<T>, giveBack: (late: T) => Promise<unknown> | undefined): Promise<T> {
  return before(work).catch((error: unknown) => {
    work.then(giveBack).catch(() => undefined);
    throw error;
  });
}

/**
 * A claim's commit that failed (connection lost, Postgres restarting) is sent again until it lands, as long as the
 * claim settler leaves a pending claim alone: until then the link, whose event is in the log and whose 201 may have
 * gone out, is seen by no redirect, read or change, and its next change would be answered 404
 * (docs/decisions/0030-an-unsettled-link-is-503-not-404.md).
 */
export const CLAIM_COMMIT_RETRY = { firstMs: 100, maxMs: 1000, forMs: 60_000 } as const;

async function commitUntilDone(first: Promise<void>, again: () => Promise<void>): Promise<void> {
  const giveUpAt = Date.now() + CLAIM_COMMIT_RETRY.forMs;
  let waitMs: number = CLAIM_COMMIT_RETRY.firstMs;
  for (let attempt = first; ; attempt = again()) {
    try {
      return await attempt;
    } catch (error) {
      if (Date.now() + waitMs > giveUpAt) throw error;
      // Unref'd: a process that is stopping does not wait for it (the projector and the settler remain).
      await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      waitMs = Math.min(waitMs * 2, CLAIM_COMMIT_RETRY.maxMs);
    }
  }
}

/** Slug claims within the deadlines: claiming before the append, committing after (and again, until done). */
export function claimsWithinDeadlines(claims: PostgresClaimStore): ClaimStore {
  const commitAgain = (slug: string, linkId: string) => () => claims.commit(slug, linkId);
  // A claim a retry under its key may take up is left to it.
  const claimWithin = (claim: Claim, won: Promise<boolean>) =>
    claim.resumable
      ? before(won)
      : beforeOrGiveBack(won, (late) =>
          late ? claims.releaseAbandoned({ slug: claim.slug, linkId: claim.linkId }) : undefined,
        );
  return {
    claim: (claim) => claimWithin(claim, claims.claim(claim)),
    commit: (slug, linkId) => after(commitUntilDone(claims.commit(slug, linkId), commitAgain(slug, linkId))),
    claimAll: (all) => claims.claimAll(all).map((won, i) => claimWithin(all[i] as Claim, won)),
    commitAll: (refs) =>
      claims.commitAll(refs).map((first, i) => {
        const { slug, linkId } = refs[i] as (typeof refs)[number];
        return after(commitUntilDone(first, commitAgain(slug, linkId)));
      }),
    findOwn: (linkIds) => before(claims.findOwn(linkIds)),
  };
}

/** Idempotency-Keys within the deadlines: taken before the work, the outcome recorded after it. */
export function idempotencyWithinDeadlines(store: IdempotencyStore): IdempotencyStore {
  return {
    // Given back as any release is: its work kept, so a retry takes it over at once, not after the lease.
    begin: (ref, hash) =>
      beforeOrGiveBack(store.begin(ref, hash), (late) =>
        late.kind === 'acquired' ? store.release(ref, late.owner) : undefined,
      ),
    complete: (ref, owner, response) => after(store.complete(ref, owner, response)),
    release: (ref, owner) => after(store.release(ref, owner)),
    purgeExpired: () => store.purgeExpired(),
  };
}

import { answerWithin } from '@shortlink/http';
import type { IdempotencyStore } from './idempotency/idempotency-store';
import type { Claim, ClaimStore, PostgresClaimStore } from './links/stores/claims';

/**
 * How long a write waits for Postgres. A Postgres that stalls (frozen,
 * partitioned away, failing over: connections open, nothing answered) would
 * otherwise hold every write for as long as it lasts, or until the entry
 * point gives up with a 504 that says nothing of the outcome.
 *
 * - Before anything is durable (the Idempotency-Key taken, the slug claimed,
 *   a change's turn, connection and statements, which share one bound), a
 *   wait past `beforeDurableMs` is an outage: 503, nothing was done. A claim that lands once Postgres wakes is given back
 *   then, or, when a retry under its Idempotency-Key may finish it, left
 *   pending for that retry (or the claim settler, as for any create that
 *   went no further).
 * - A change's COMMIT unanswered within it is "may or may not be saved"
 *   (changeUnconfirmed).
 * - After the link's event is in the log, bookkeeping (the claim's commit,
 *   the Idempotency-Key's outcome) waits `afterDurableMs` at most and the
 *   answer goes: the claim's commit goes on (CLAIM_COMMIT_RETRY), the
 *   projector commits the claim too, and a key whose outcome
 *   was not recorded is taken over once its lease runs out, by a retry that
 *   finishes the same links. A key taken after its request was answered 503
 *   is given back as soon as Postgres answers.
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
 * A claim's commit that failed (its connection lost, Postgres restarting) is
 * sent again until it lands, for as long as the claim settler leaves a
 * pending claim alone. Until then the link, whose event is in the log and
 * whose 201 may have gone out, is seen by no redirect, read or change
 * (they read committed claims and the projection); the link projector
 * commits it too, but only once it has read the event and Postgres answers
 * it, seconds later. `npm run chaos` (postgres-restart, 2026-11-29): a
 * change of a link answered 201 a moment before was answered 404.
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

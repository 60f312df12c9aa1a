import type { Account } from '@shortlink/accounts';
import { createEvent, type LinkCreated } from '@shortlink/events';
import { linkResource, type LinkResource } from '@shortlink/http';
import { appendFailed, SLUG_SPACE_EXHAUSTED, SLUG_TAKEN } from '../write-api-errors';
import type { ClaimStore } from './claims';
import type { CreateLinkInput } from './create-link-validation';
import type { AppendLinkCreated } from './link-created-appender';

/** The Link resource of spec section 2.1. */
export type Link = LinkResource;

export interface CreateLinkDeps {
  claims: ClaimStore;
  appendLinkCreated: AppendLinkCreated;
  now: () => Date;
  newId: () => string;
  newSlug: () => string;
  publicBaseUrl: string;
  /**
   * Called once a link is committed, before its 201 is sent. A process that
   * also runs the redirector uses it to drop a cached "not found" at once;
   * other processes learn it through Postgres NOTIFY.
   */
  onLinkCommitted?: (slug: string) => void;
  /** Called when a claim could not be committed; the projector or the settler commits it later. */
  onClaimError: (error: unknown, slug: string) => void;
}

const GENERATED_SLUG_ATTEMPTS = 10;

/** One create's outcome in a batch: its Link, or the error that answers it alone. */
export type CreateOutcome = { ok: true; link: Link } | { ok: false; error: unknown };

/**
 * Claim the slug, append LinkCreated, commit the claim. A 201 is returned only
 * after the append is acknowledged. A failed append is not released on the
 * spot: the broker may have written the event even though the client saw an
 * error. The claim stays pending, and the claim settler frees the slug once the
 * topic shows the event is not there (or commits it if it is).
 */
export async function createLink(deps: CreateLinkDeps, account: Account, input: CreateLinkInput): Promise<Link> {
  const [outcome] = await createLinks(deps, account, [input]);
  if (!outcome?.ok) throw outcome?.error;
  return outcome.link;
}

interface Pending {
  index: number;
  input: CreateLinkInput;
  linkId: string;
}

/**
 * `createLink` for several links at once (a bulk create): the creates share
 * each round trip (one claim statement per round of slug draws, one produce
 * request, one commit statement), and each one's failure is its own. Outcomes
 * are in the order of `inputs`.
 */
export async function createLinks(
  deps: CreateLinkDeps,
  account: Account,
  inputs: readonly CreateLinkInput[],
): Promise<CreateOutcome[]> {
  const createdAt = deps.now();
  const outcomes = new Array<CreateOutcome>(inputs.length);
  const failed = (p: Pending, error: unknown) => (outcomes[p.index] = { ok: false, error });
  const claimed: (Pending & { slug: string })[] = [];

  let drawing: Pending[] = inputs.map((input, index) => ({ index, input, linkId: deps.newId() }));
  // A custom slug is tried once; a generated one is drawn again when taken.
  for (let attempt = 0; drawing.length > 0; attempt++) {
    if (attempt === GENERATED_SLUG_ATTEMPTS) {
      for (const p of drawing) failed(p, SLUG_SPACE_EXHAUSTED);
      break;
    }
    const candidates = drawing.map((p) => p.input.customSlug ?? deps.newSlug());
    const results = await Promise.allSettled(
      deps.claims.claimAll(drawing.map((p, i) => claimOf(p, candidates[i] as string))),
    );
    const again: Pending[] = [];
    results.forEach((result, i) => {
      const p = drawing[i] as Pending;
      if (result.status === 'rejected') failed(p, result.reason);
      else if (result.value) claimed.push({ ...p, slug: candidates[i] as string });
      else if (p.input.customSlug !== null) failed(p, SLUG_TAKEN);
      else again.push(p);
    });
    drawing = again;
  }

  const events = claimed.map(({ linkId, slug, input }) =>
    createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId, accountId: account.id, slug, destinationUrl: input.destinationUrl, tag: input.tag },
      { eventId: deps.newId(), occurredAt: createdAt.toISOString() },
    ),
  );
  const appended = await Promise.allSettled(events.length > 0 ? deps.appendLinkCreated(events) : []);
  const durable = claimed.filter((p, i) => {
    const result = appended[i];
    if (result?.status === 'fulfilled') return true;
    failed(p, appendFailed(result?.reason));
    return false;
  });

  // The events are durable: the links exist whatever happens next. The
  // projector commits the claims too, so a failure here only delays that.
  if (durable.length > 0) {
    await Promise.all(
      deps.claims
        .commitAll(durable.map(({ slug, linkId }) => ({ slug, linkId })))
        .map((commit, i) =>
          commit.catch((e: unknown) => deps.onClaimError(e, (durable[i] as Pending & { slug: string }).slug)),
        ),
    );
  }
  for (const { index, slug, linkId, input } of durable) {
    deps.onLinkCommitted?.(slug);
    outcomes[index] = {
      ok: true,
      link: linkResource(
        { linkId, slug, destinationUrl: input.destinationUrl, tag: input.tag, createdAt },
        deps.publicBaseUrl,
      ),
    };
  }
  return outcomes;

  function claimOf(p: Pending, slug: string) {
    return {
      slug,
      linkId: p.linkId,
      accountId: account.id,
      destinationUrl: p.input.destinationUrl,
      tag: p.input.tag,
      createdAt,
    };
  }
}

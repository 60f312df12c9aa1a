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

/**
 * Claim the slug, append LinkCreated, commit the claim. A 201 is returned only
 * after the append is acknowledged. A failed append is not released on the
 * spot: the broker may have written the event even though the client saw an
 * error. The claim stays pending, and the claim settler frees the slug once the
 * topic shows the event is not there (or commits it if it is).
 */
export async function createLink(deps: CreateLinkDeps, account: Account, input: CreateLinkInput): Promise<Link> {
  const createdAt = deps.now();
  const linkId = deps.newId();
  let slug = input.customSlug;
  if (slug !== null) {
    if (!(await deps.claims.claim(claimOf(slug)))) throw SLUG_TAKEN;
  } else {
    for (let attempt = 0; slug === null; attempt++) {
      if (attempt === GENERATED_SLUG_ATTEMPTS) {
        throw SLUG_SPACE_EXHAUSTED;
      }
      const candidate = deps.newSlug();
      if (await deps.claims.claim(claimOf(candidate))) slug = candidate;
    }
  }

  const event = createEvent<LinkCreated>(
    'LinkCreated',
    1,
    { linkId, accountId: account.id, slug, destinationUrl: input.destinationUrl, tag: input.tag },
    { eventId: deps.newId(), occurredAt: createdAt.toISOString() },
  );
  try {
    await deps.appendLinkCreated(event);
  } catch (error) {
    throw appendFailed(error);
  }
  // The event is durable: the link exists whatever happens next. The projector
  // commits the claim too, so a failure here only delays that.
  await deps.claims.commit(slug, linkId).catch((e: unknown) => deps.onClaimError(e, slug));
  deps.onLinkCommitted?.(slug);

  return linkResource(
    { linkId, slug, destinationUrl: input.destinationUrl, tag: input.tag, createdAt },
    deps.publicBaseUrl,
  );

  function claimOf(candidate: string) {
    return {
      slug: candidate,
      linkId,
      accountId: account.id,
      destinationUrl: input.destinationUrl,
      tag: input.tag,
      createdAt,
    };
  }
}

import type { Account } from '@shortlink/accounts';
import { createEvent, linkKey, linkOfKey, NO_ROUTING, storedRouting, type LinkCreated } from '@shortlink/events';
import { INVALID_DOMAIN, linkResource, type LinkResource } from '@shortlink/links';
import { excerpt } from '@shortlink/http';
import { appendFailed, SLUG_SPACE_EXHAUSTED, slugTaken } from '../write-api-errors';
import type { ClaimStore } from './stores/claims';
import type { CreateLinkInput } from './rules/create-link-validation';
import type { AppendLinkCreated } from './stores/link-created-appender';
import { workIdentity, type Work } from '../idempotency/work-identity';

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
   * Which of these hostnames the account has verified (a link may go only on those). Absent: branded domains are not
   * served here, and a create that names one is refused.
   */
  verifiedDomains?: (accountId: string, hostnames: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * Called once a link is committed, before its 201 is sent. A process that
   * also runs the redirector uses it to drop a cached "not found" at once;
   * other processes learn it through Postgres NOTIFY.
   */
  onLinkCommitted?: (key: string) => void;
  /** Called when a claim could not be committed; the projector or the settler commits it later. */
  onClaimError: (error: unknown, key: string) => void;
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
export async function createLink(
  deps: CreateLinkDeps,
  account: Account,
  input: CreateLinkInput,
  work: Work | null = null,
): Promise<Link> {
  const [outcome] = await createLinks(deps, account, [input], work);
  if (!outcome?.ok) throw outcome?.error;
  return outcome.link;
}

interface Pending {
  index: number;
  input: CreateLinkInput;
  linkId: string;
  eventId: string;
}

interface Claimed extends Pending {
  slug: string;
  /** Its key (`linkKey`): what the claim is on, since a slug is unique per domain. */
  key: string;
  createdAt: Date;
  /** Its LinkCreated is known to be in the log (an earlier attempt's committed claim). */
  committed: boolean;
}

/**
 * `createLink` for several links at once (a bulk create): the creates share each round trip (claims, produce, commit)
 * and each one's failure is its own; outcomes are in the order of `inputs`. Under an Idempotency-Key, `work` names the
 * links and their events the same way on every attempt, by their place in the request (`positions`), so an attempt that
 * took the key over from one that died finds that one's claims and finishes them (same slug, date and event id) rather
 * than claiming new slugs (docs/decisions/0050-idempotency-key.md).
 */
export async function createLinks(
  deps: CreateLinkDeps,
  account: Account,
  inputs: readonly CreateLinkInput[],
  work: Work | null = null,
  positions: readonly number[] = inputs.map((_, index) => index),
): Promise<CreateOutcome[]> {
  const createdAt = deps.now();
  const outcomes = new Array<CreateOutcome>(inputs.length);
  const failed = (p: Pending, error: unknown) => (outcomes[p.index] = { ok: false, error });
  const claimed: Claimed[] = [];
  const idOf = (kind: 'link' | 'event', index: number) =>
    work === null ? deps.newId() : workIdentity(work.id, kind, positions[index] ?? index);
  const linkIds = inputs.map((_, index) => idOf('link', index));
  const eventIds = inputs.map((_, index) => idOf('event', index));
  const all: Pending[] = inputs.map((input, index) => ({
    index,
    input,
    linkId: linkIds[index] as string,
    eventId: eventIds[index] as string,
  }));

  const earlier = new Map(work?.resumed ? (await deps.claims.findOwn(linkIds)).map((c) => [c.linkId, c]) : []);
  let drawing: Pending[] = [];
  for (const p of all) {
    const own = earlier.get(p.linkId);
    if (own) {
      const { slug } = linkOfKey(own.slug);
      claimed.push({ ...p, slug, key: own.slug, createdAt: own.createdAt, committed: own.state === 'committed' });
    } else drawing.push(p);
  }
  drawing = await onVerifiedDomains(deps, account, drawing, failed);
  // A custom slug is tried once; a generated one is drawn again when taken.
  for (let attempt = 0; drawing.length > 0; attempt++) {
    if (attempt === GENERATED_SLUG_ATTEMPTS) {
      for (const p of drawing) failed(p, SLUG_SPACE_EXHAUSTED);
      break;
    }
    const candidates = drawing.map((p) => p.input.customSlug ?? deps.newSlug());
    const keys = drawing.map((p, i) => linkKey(p.input.domain, candidates[i] as string));
    const results = await Promise.allSettled(
      deps.claims.claimAll(drawing.map((p, i) => claimOf(p, keys[i] as string))),
    );
    const again: Pending[] = [];
    results.forEach((result, i) => {
      const p = drawing[i] as Pending;
      if (result.status === 'rejected') failed(p, result.reason);
      else if (result.value) {
        claimed.push({ ...p, slug: candidates[i] as string, key: keys[i] as string, createdAt, committed: false });
      } else if (p.input.customSlug !== null) failed(p, slugTaken(p.input.customSlug));
      else again.push(p);
    });
    drawing = again;
  }

  // An earlier attempt's event may be in the log already: appended again under its own id, it is a
  // repeat that every consumer drops (docs/decisions/0021-appends-at-least-once-without-idempotence.md).
  const toAppend = claimed.filter((c) => !c.committed);
  const events = toAppend.map(({ linkId, eventId, slug, input, createdAt: at }) =>
    createEvent<LinkCreated>(
      'LinkCreated',
      2,
      {
        linkId,
        accountId: account.id,
        slug,
        destinationUrl: input.destinationUrl,
        tag: input.tag,
        ...(input.routing ?? NO_ROUTING),
        domain: input.domain ?? null,
      },
      { eventId, occurredAt: at.toISOString() },
    ),
  );
  const appended = await Promise.allSettled(events.length > 0 ? deps.appendLinkCreated(events) : []);
  const failedAppends = new Set<Claimed>();
  toAppend.forEach((c, i) => {
    const result = appended[i];
    if (result?.status === 'fulfilled') return;
    failedAppends.add(c);
    failed(c, appendFailed(result?.reason));
  });
  const durable = claimed.filter((c) => !failedAppends.has(c));

  // The events are durable: the links exist whatever happens next. The
  // projector commits the claims too, so a failure here only delays that.
  const uncommitted = durable.filter((c) => !c.committed);
  if (uncommitted.length > 0) {
    await Promise.all(
      deps.claims
        .commitAll(uncommitted.map(({ key, linkId }) => ({ slug: key, linkId })))
        .map((commit, i) => commit.catch((e: unknown) => deps.onClaimError(e, (uncommitted[i] as Claimed).key))),
    );
  }
  for (const { index, slug, key, linkId, input, createdAt: at } of durable) {
    deps.onLinkCommitted?.(key);
    outcomes[index] = {
      ok: true,
      link: linkResource(
        {
          linkId,
          slug,
          domain: input.domain ?? null,
          destinationUrl: input.destinationUrl,
          tag: input.tag,
          createdAt: at,
          routing: storedRouting(input.routing ?? NO_ROUTING),
        },
        deps.publicBaseUrl,
      ),
    };
  }
  return outcomes;

  function claimOf(p: Pending, key: string) {
    return {
      slug: key,
      linkId: p.linkId,
      accountId: account.id,
      destinationUrl: p.input.destinationUrl,
      tag: p.input.tag,
      createdAt,
      routing: storedRouting(p.input.routing ?? NO_ROUTING),
      resumable: work !== null,
    };
  }
}

/**
 * The creates whose domain the account has verified, or that name none; each of the others fails alone, with
 * `invalid_domain` (or the store's error, when it could not say). One round trip for every domain of the batch.
 */
async function onVerifiedDomains<P extends Pending>(
  deps: CreateLinkDeps,
  account: Account,
  creates: P[],
  failed: (p: P, error: unknown) => void,
): Promise<P[]> {
  const wanted = [...new Set(creates.flatMap((p) => (p.input.domain ? [p.input.domain] : [])))];
  if (wanted.length === 0) return creates;
  let verified: ReadonlySet<string> = new Set();
  let lookupError: unknown = null;
  try {
    verified = deps.verifiedDomains === undefined ? verified : await deps.verifiedDomains(account.id, wanted);
  } catch (error) {
    lookupError = error;
  }
  return creates.filter((p) => {
    const domain = p.input.domain;
    if (!domain || verified.has(domain)) return true;
    failed(
      p,
      lookupError ??
        INVALID_DOMAIN.withDetail(`This account has not verified the domain ${excerpt(domain)}.`, 'domain'),
    );
    return false;
  });
}

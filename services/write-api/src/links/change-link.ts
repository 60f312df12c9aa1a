import type { Account } from '@shortlink/accounts';
import { LINK_NOT_SETTLED, linkNotFound, linkResource, type LinkResource } from '@shortlink/links';
import { CommitUnconfirmed } from '@shortlink/postgres';
import { changeNotConfirmed, changeUnconfirmed } from '../write-api-errors';
import { decideLinkChange, type LinkCommand } from './rules/decide-link-change';
import type { AppendLinkEvent } from './stores/link-created-appender';
import type { LinkChangeStore } from './stores/link-change-store';
import type { RedirectorAcks } from './stores/redirector-acks';

export interface ChangeLinkDeps {
  changes: LinkChangeStore;
  appendLinkEvent: AppendLinkEvent;
  redirectors: Pick<RedirectorAcks, 'expect'>;
  now: () => Date;
  newId: () => string;
  publicBaseUrl: string;
  /** Called once a change committed. A process that also runs the redirector drops its cache entry at once. */
  onLinkChanged?: (key: string) => void;
}

/**
 * Updates or deletes a link: one Postgres transaction changes the write model
 * and tells the redirectors; then, side by side, the event is appended to the
 * links topic (within the append deadline) and the redirectors' confirmations
 * are awaited (within their lease). The answer leaves after both, so the very
 * next redirect anywhere sees the change. Returns the changed link; for a
 * delete, its last state. `key` names the link (`linkKey`: its slug, and its domain when it has one).
 */
export async function changeLink(
  deps: ChangeLinkDeps,
  account: Account,
  key: string,
  command: LinkCommand,
): Promise<LinkResource> {
  const eventId = deps.newId();
  const expectation = deps.redirectors.expect(eventId);
  let decision;
  try {
    // The clock is read once the link's row is locked: a change that waited
    // for another is dated after it.
    decision = await deps.changes.change(
      key,
      (current) => decideLinkChange(current, account.id, command, { eventId, now: deps.now() }),
      { accountId: account.id },
    );
  } catch (error) {
    expectation.cancel();
    if (!(error instanceof CommitUnconfirmed)) throw error;
    // Perhaps saved: a cached copy in this process must not outlive it (the others hear the commit's NOTIFY).
    deps.onLinkChanged?.(key);
    throw changeUnconfirmed(error);
  }
  if (decision.kind === 'not-found' || decision.kind === 'not-settled') {
    expectation.cancel();
    throw decision.kind === 'not-found' ? linkNotFound(key) : LINK_NOT_SETTLED;
  }
  if (decision.kind === 'changed') {
    deps.onLinkChanged?.(key);
    // The link's events waiting in the outbox go in version order, this one
    // among them (unless another change's publish took it already).
    const [appended] = await Promise.allSettled([
      deps.changes.publish(key, deps.appendLinkEvent),
      expectation.settle(),
    ]);
    // Committed and visible already; the outbox keeps the event until the log takes it.
    if (appended.status === 'rejected') throw changeNotConfirmed(appended.reason);
  } else {
    expectation.cancel();
  }
  return linkResource(decision.state, deps.publicBaseUrl);
}

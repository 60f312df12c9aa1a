import {
  createEvent,
  storedRouting,
  type EventMeta,
  type LinkChangedField,
  type LinkDeleted,
  type LinkRouting,
  type LinkUpdated,
} from '@shortlink/events';
import type { LinkChanges } from './update-link-validation';

/** A link as the write model holds it. */
export interface LinkState {
  linkId: string;
  accountId: string;
  slug: string;
  /** Its branded domain; null: the installation's own. */
  domain: string | null;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
  /** null until its first change. */
  updatedAt: Date | null;
  deletedAt: Date | null;
  version: number;
  /** Its rules and variants; null when it has none. */
  routing: LinkRouting | null;
  /**
   * Its create is not settled: the slug's claim is pending and the link is
   * not projected. It may be a link already (answered 201, the claim's commit
   * still to come) or never become one (the create failed).
   */
  unsettled?: true;
}

export type LinkCommand = { kind: 'update'; changes: LinkChanges } | { kind: 'delete' };

export type LinkDecision =
  | { kind: 'not-found' }
  /** The owner's link, whose create is not settled: neither changed nor "not found" (LinkState.unsettled). */
  | { kind: 'not-settled' }
  /** The request asks for what the link already is: nothing to append. */
  | { kind: 'unchanged'; state: LinkState }
  | { kind: 'changed'; state: LinkState; event: LinkUpdated | LinkDeleted };

/**
 * What a change request does to a link. Only the owner may change it; an
 * unknown slug, a deleted link and another account's link are the same
 * "not found". Pure: the event's id and the clock come in. A change is dated
 * no earlier than the state it follows: two processes' clocks differ, so a
 * link's `updatedAt` and its events' `occurredAt` would otherwise go back in
 * time while its version goes forward.
 */
export function decideLinkChange(
  current: LinkState | null,
  accountId: string,
  command: LinkCommand,
  meta: { eventId: string; now: Date },
): LinkDecision {
  if (current === null || current.deletedAt !== null || current.accountId !== accountId) return { kind: 'not-found' };
  if (current.unsettled) return { kind: 'not-settled' };
  const version = current.version + 1;
  const previous = current.updatedAt ?? current.createdAt;
  const now = meta.now.getTime() < previous.getTime() ? previous : meta.now;
  const eventMeta: EventMeta = { eventId: meta.eventId, occurredAt: now.toISOString() };
  const { linkId, slug, domain } = current;

  if (command.kind === 'delete') {
    return {
      kind: 'changed',
      state: { ...current, deletedAt: now, updatedAt: now, version },
      event: createEvent<LinkDeleted>(
        'LinkDeleted',
        1,
        // `domain` only where there is one: a deletion on the installation's own domain reads as it always has.
        { linkId, accountId, slug, version, ...(domain === null ? {} : { domain }) },
        eventMeta,
      ),
    };
  }

  const { changes } = command;
  const changedFields: LinkChangedField[] = [];
  if (changes.destinationUrl !== undefined && changes.destinationUrl !== current.destinationUrl) {
    changedFields.push('destinationUrl');
  }
  if (changes.tag !== undefined && changes.tag !== current.tag) changedFields.push('tag');
  const rules = changes.rules ?? current.routing?.rules ?? [];
  const variants = changes.variants === undefined ? (current.routing?.variants ?? null) : changes.variants;
  // Validated lists of plain values, in the order given: the same JSON is the same list.
  if (JSON.stringify(rules) !== JSON.stringify(current.routing?.rules ?? [])) changedFields.push('rules');
  if (JSON.stringify(variants) !== JSON.stringify(current.routing?.variants ?? null)) changedFields.push('variants');
  if (changedFields.length === 0) return { kind: 'unchanged', state: current };

  const destinationUrl = changes.destinationUrl ?? current.destinationUrl;
  const tag = changes.tag === undefined ? current.tag : changes.tag;
  const routing = storedRouting({ rules, variants });
  return {
    kind: 'changed',
    state: { ...current, destinationUrl, tag, routing, updatedAt: now, version },
    // Version 2 always: its consumers read the routing whole from every change, not only from one that names it.
    event: createEvent<LinkUpdated>(
      'LinkUpdated',
      2,
      { linkId, accountId, slug, version, destinationUrl, tag, changedFields, rules, variants, domain },
      eventMeta,
    ),
  };
}

/**
 * LISTEN/NOTIFY channels. `linkCreated` carries a slug the moment its claim is
 * committed, so redirectors drop a cached "not found" before the creator's 201
 * reaches the client. `linkChanged` carries `<changeId> <slug>` in the very
 * transaction that updates or deletes a link; each redirector drops the slug
 * and answers on `linkChangeApplied` with `<listenerId> <changeId>`, which the
 * write API waits for before it answers. `domainChanged` carries
 * `<changeId> <hostname>` in the transaction that verifies, changes or
 * deletes a domain, and is confirmed on the same `linkChangeApplied` once the
 * redirector holds the domain's new state (decision 0076).
 */
export const CHANNELS = {
  linkCreated: 'shortlink_link_created',
  linkChanged: 'shortlink_link_changed',
  linkChangeApplied: 'shortlink_link_change_applied',
  domainChanged: 'shortlink_domain_changed',
} as const;

/** The payload of a `linkChanged` notification. */
export function linkChangedPayload(changeId: string, slug: string): string {
  return `${changeId} ${slug}`;
}

/** The payload of a `domainChanged` notification (a hostname holds no space). */
export function domainChangedPayload(changeId: string, hostname: string): string {
  return `${changeId} ${hostname}`;
}

/** A `linkChanged`, `domainChanged` or `linkChangeApplied` payload: two words, or null for anything else. */
export function parsePayloadPair(payload: string | undefined): [string, string] | null {
  const parts = payload?.split(' ');
  if (!parts || parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return [parts[0], parts[1]];
}

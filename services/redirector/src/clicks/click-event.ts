import { createEvent, type ClickRecorded } from '@shortlink/events';
import type { AddressFactsOf } from './address-facts';
import type { ClickColumns } from './click-columns';
import { clickEventId } from './click-event-id';
import { referrerOrigin } from './referrer-origin';

/**
 * The envelope's instant, in its one wire form. At thousands of clicks a
 * second, clicks come in capture order and most share their millisecond with
 * the click before: `toISOString` (a `Date` and a formatting a click) was the
 * largest cost of building the event but the HMAC, so the last one is kept.
 */
let lastInstant = Number.NaN;
let lastIsoInstant = '';
function isoInstant(ms: number): string {
  if (ms !== lastInstant) {
    lastIsoInstant = new Date(ms).toISOString();
    lastInstant = ms;
  }
  return lastIsoInstant;
}

/** Kept to their columns' bounds (the events' schema): an origin of 512 characters, an agent of 1,024. */
const REFERRER_MAX = 512;
const USER_AGENT_MAX = 1024;

/**
 * A batch of captured clicks as events on the clicks topic. The raw IP and
 * the full referrer stop here: only the keyed visitor hash, the country and
 * the referrer's origin leave the redirector. What the batch holds once (its
 * addresses, referers and user agents) is worked out once: a referer's origin
 * is a URL parse, an address's facts an HMAC and a lookup.
 */
export function clickEventsOf(
  columns: ClickColumns,
  { factsOf, eventIdPrefix }: { factsOf: AddressFactsOf; eventIdPrefix: string },
): ClickRecorded[] {
  const { links } = columns;
  const facts = columns.ips.map(factsOf);
  const origins = columns.referers.map((referer) => referrerOrigin(referer ?? undefined).slice(0, REFERRER_MAX));
  const agents = columns.userAgents.map((agent) => agent.slice(0, USER_AGENT_MAX));
  return Array.from(columns.sequence, (sequence, i) => {
    const link = columns.linkIndex[i]!;
    const address = facts[columns.ipIndex[i]!]!;
    const clickedAt = columns.clickedAt[i]!;
    return createEvent<ClickRecorded>(
      'ClickRecorded',
      1,
      {
        linkId: links.linkId[link]!,
        accountId: links.accountId[link]!,
        slug: links.slug[link]!,
        clickedAt,
        visitorHash: address.visitorHash,
        referrer: origins[columns.refererIndex[i]!]!,
        country: address.country,
        userAgent: agents[columns.userAgentIndex[i]!]!,
      },
      { eventId: clickEventId(eventIdPrefix, clickedAt, sequence), occurredAt: isoInstant(clickedAt) },
    );
  });
}

import { createEvent, type ClickRecorded } from '@shortlink/events';
import { canonicalClientAddress } from './client-address';
import type { CountryOf } from './country';
import type { RawClick } from './raw-click';
import { referrerOrigin } from './referrer-origin';
import { visitorHash } from './visitor-hash';

export interface ClickEventContext {
  visitorSecret: string;
  countryOf: CountryOf;
}

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

/**
 * A captured click as the event on the clicks topic. The raw IP and the full
 * referrer stop here: only the keyed visitor hash, the country and the
 * referrer's origin leave the redirector.
 * The address is made canonical first, so one client is one visitor however
 * its address was written.
 */
export function toClickEvent(raw: RawClick, context: ClickEventContext): ClickRecorded {
  const ip = canonicalClientAddress(raw.ip);
  return createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: raw.linkId,
      accountId: raw.accountId,
      slug: raw.slug,
      clickedAt: raw.clickedAt,
      visitorHash: visitorHash(context.visitorSecret, ip),
      referrer: referrerOrigin(raw.referer).slice(0, 512),
      country: context.countryOf(ip),
      userAgent: raw.userAgent.slice(0, 1024),
    },
    { eventId: raw.eventId, occurredAt: isoInstant(raw.clickedAt) },
  );
}

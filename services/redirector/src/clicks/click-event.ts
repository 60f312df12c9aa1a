import { createEvent, type ClickRecorded } from '@shortlink/events';
import { referrerOrigin, visitorHash, type CountryOf, type RawClick } from './enrich';

export interface ClickEventContext {
  visitorSecret: string;
  countryOf: CountryOf;
}

/**
 * A captured click as the event on the clicks topic. The raw IP and the full
 * referrer stop here: only the keyed visitor hash, the country and the
 * referrer's origin leave the redirector.
 */
export function toClickEvent(raw: RawClick, context: ClickEventContext): ClickRecorded {
  return createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: raw.linkId,
      accountId: raw.accountId,
      slug: raw.slug,
      clickedAt: raw.clickedAt,
      visitorHash: visitorHash(context.visitorSecret, raw.ip),
      referrer: referrerOrigin(raw.referer).slice(0, 512),
      country: context.countryOf(raw.ip),
      userAgent: raw.userAgent.slice(0, 1024),
    },
    { eventId: raw.eventId, occurredAt: new Date(raw.clickedAt).toISOString() },
  );
}

import type { ClickRecorded } from './events';

const number = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');
/** An event id (a UUID) or an ISO instant: written between quotes as it is, since nothing in it needs escaping. */
const PLAIN = /^[0-9A-Za-z.:-]*$/;
const plain = (text: string): string => (PLAIN.test(text) ? '"' + text + '"' : JSON.stringify(text));

/**
 * A ClickRecorded event's JSON text in pieces, so that what a batch of clicks
 * shares is written once for the batch: a link's three ids, an address's
 * visitor hash and country, a referrer, a user agent. Each piece is a field
 * (or the link's three) with the separator before it, quoted by
 * JSON.stringify, so any value is written as JSON writes it. Joined by
 * `clickRecordedJson`, they are the text `JSON.stringify` writes of the
 * envelope `createEvent` builds, byte for byte, keys in the same order
 * (click-recorded-json.test.ts): data teams see no difference.
 */
export const clickRecordedPiece = {
  link: (linkId: string, accountId: string, slug: string): string =>
    ',"data":{"linkId":' +
    JSON.stringify(linkId) +
    ',"accountId":' +
    JSON.stringify(accountId) +
    ',"slug":' +
    JSON.stringify(slug) +
    ',"clickedAt":',
  visitorHash: (visitorHash: string): string => ',"visitorHash":' + JSON.stringify(visitorHash),
  referrer: (referrer: string): string => ',"referrer":' + JSON.stringify(referrer),
  country: (country: string): string => ',"country":' + JSON.stringify(country),
  userAgent: (userAgent: string): string => ',"userAgent":' + JSON.stringify(userAgent) + '}}',
};

/**
 * One click's event as JSON, from its own id, instant and time and the pieces
 * it shares. Writing the line from pieces, rather than building an event
 * object and writing that, was about a fifth of a click's cost in the click
 * worker, the garbage collector's work included (docs/performance.md).
 */
export function clickRecordedJson(
  eventId: string,
  occurredAt: string,
  clickedAt: number,
  link: string,
  visitorHash: string,
  referrer: string,
  country: string,
  userAgent: string,
): string {
  return (
    '{"eventId":' +
    plain(eventId) +
    ',"type":"ClickRecorded","schemaVersion":1,"occurredAt":' +
    plain(occurredAt) +
    link +
    number(clickedAt) +
    visitorHash +
    referrer +
    country +
    userAgent
  );
}

/** An event already built, as its line (tests, tools and the bench's producers; the redirector writes from pieces). */
export function clickRecordedJsonOf(event: ClickRecorded): string {
  const { data } = event;
  return clickRecordedJson(
    event.eventId,
    event.occurredAt,
    data.clickedAt,
    clickRecordedPiece.link(data.linkId, data.accountId, data.slug),
    clickRecordedPiece.visitorHash(data.visitorHash),
    clickRecordedPiece.referrer(data.referrer),
    clickRecordedPiece.country(data.country),
    clickRecordedPiece.userAgent(data.userAgent),
  );
}

import type { ClickRecorded } from './events';

const number = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

/**
 * JSON leaves U+0085, U+2028 and U+2029 unescaped, and to Unicode-aware readers
 * they end a line (Python's `splitlines`, some loaders): a user agent holding
 * them split one event of the clicks topic into three lines there. Escaped, a
 * line is one event to every reader, and still the same value once parsed.
 */
const UNICODE_LINE_BREAK = /[\u0085\u2028\u2029]/;
const UNICODE_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
const escapeLineBreak = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');

/** A string as JSON text for a line of newline-delimited JSON: what JSON.stringify writes, no line break of any kind left. */
function lineJsonString(text: string): string {
  const json = JSON.stringify(text);
  return UNICODE_LINE_BREAK.test(json) ? json.replace(UNICODE_LINE_BREAKS, escapeLineBreak) : json;
}

/** An event id (a UUID) or an ISO instant: written between quotes as it is, since nothing in it needs escaping. */
const PLAIN = /^[0-9A-Za-z.:-]*$/;
const plain = (text: string): string => (PLAIN.test(text) ? '"' + text + '"' : lineJsonString(text));

/**
 * A ClickRecorded event's JSON text in pieces, so what a batch's clicks share (a link's three ids, an address's visitor
 * hash and country, a referrer, a user agent) is written once. Each piece is a field with the separator before it,
 * quoted by JSON.stringify; joined by `clickRecordedJson`, they are byte for byte what `JSON.stringify` writes of
 * `createEvent`'s envelope, keys in the same order (click-recorded-json.test.ts), so data teams see no difference.
 */
export const clickRecordedPiece = {
  /** `domain`: the link's branded domain, written only when it has one (absent: the installation's own). */
  link: (linkId: string, accountId: string, slug: string, domain?: string | null): string => {
    return (
      ',"data":{"linkId":' +
      lineJsonString(linkId) +
      ',"accountId":' +
      lineJsonString(accountId) +
      ',"slug":' +
      lineJsonString(slug) +
      (domain === null || domain === undefined ? '' : ',"domain":' + lineJsonString(domain)) +
      ',"clickedAt":'
    );
  },
  visitorHash: (visitorHash: string): string => ',"visitorHash":' + lineJsonString(visitorHash),
  referrer: (referrer: string): string => ',"referrer":' + lineJsonString(referrer),
  country: (country: string): string => ',"country":' + lineJsonString(country),
  userAgent: (userAgent: string): string => ',"userAgent":' + lineJsonString(userAgent),
};

/**
 * The end of the line: the trigger when there is one (the redirector writes only `qr`; none is a link), then the rule
 * and the variant that chose the destination when one did (a negative or absent position: none).
 */
const ending = (trigger: string | undefined, rule: number | undefined, variant: number | undefined): string => {
  const routed =
    (rule === undefined || rule < 0 ? '' : ',"rule":' + number(rule)) +
    (variant === undefined || variant < 0 ? '' : ',"variant":' + number(variant));
  return (trigger === undefined ? '' : ',"trigger":' + lineJsonString(trigger)) + routed + '}}';
};

/**
 * One click's event as JSON, from its own id, instant and time and the pieces
 * it shares. Writing the line from pieces, rather than building an event
 * object and writing that, saves about a fifth of a click's cost in the click
 * worker, the garbage collector's work included.
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
  trigger?: string,
  rule?: number,
  variant?: number,
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
    userAgent +
    ending(trigger, rule, variant)
  );
}

/** An event already built, as its line (tests, tools and the bench's producers; the redirector writes from pieces). */
export function clickRecordedJsonOf(event: ClickRecorded): string {
  const { data } = event;
  return clickRecordedJson(
    event.eventId,
    event.occurredAt,
    data.clickedAt,
    clickRecordedPiece.link(data.linkId, data.accountId, data.slug, data.domain),
    clickRecordedPiece.visitorHash(data.visitorHash),
    clickRecordedPiece.referrer(data.referrer),
    clickRecordedPiece.country(data.country),
    clickRecordedPiece.userAgent(data.userAgent),
    data.trigger,
    data.rule,
    data.variant,
  );
}

import {
  linkOfKey,
  clickRecordedJson,
  clickRecordedJsonOf,
  clickRecordedPiece,
  storablePrefix,
  type ClickRecorded,
} from '@shortlink/events';
import type { AddressFactsOf } from './address-facts';
import type { ClickColumns } from './click-columns';
import { clickEventId } from './click-event-id';
import { headerText } from './header-text';
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

/** Kept to their columns' bounds (the events' schema): an origin of 512 UTF-16 units, an agent of 1,024. */
const REFERRER_MAX = 512;
const USER_AGENT_MAX = 1024;

/** A batch's click events as the JSON lines of the clicks topic, and the link each is of. */
export interface ClickEventLines {
  /** Line i is the ClickRecorded event of the batch's i-th click that could be written. */
  lines: string[];
  /** The batch's distinct link ids; `linkIndex[i]` is line i's. */
  linkIds: readonly string[];
  linkIndex: Uint32Array;
  /** Clicks of the batch that could not be written as events, and why the first could not: none, unless a bug. */
  rejected: number;
  rejection?: unknown;
}

/**
 * A batch of captured clicks written straight to ClickRecorded JSON lines. The raw IP and full referrer stop here: only
 * the keyed visitor hash, the country and the referrer's origin leave the redirector. What the batch holds once (links,
 * addresses, referers, agents) is worked out and written once, and a click adds only its id and instant: no event
 * object is built for the collector. A click that cannot be written is left out and counted and its neighbours go, so
 * one bad value never fails the batch's every retry (docs/decisions/0002-clicks-produced-on-a-worker-thread.md).
 */
export function clickEventLines(
  columns: ClickColumns,
  { factsOf, eventIdPrefix }: { factsOf: AddressFactsOf; eventIdPrefix: string },
): ClickEventLines {
  let rejection: unknown;
  const attempt = <T>(work: () => T): T | undefined => {
    try {
      return work();
    } catch (err) {
      rejection ??= err;
      return undefined;
    }
  };
  const { links } = columns;
  // `links.slug` holds each link's key: its slug, and its domain when it is on one, written apart.
  const linkPieces = links.linkId.map((linkId, i) =>
    attempt(() => {
      const { slug, domain } = linkOfKey(links.slug[i]!);
      return clickRecordedPiece.link(linkId, links.accountId[i]!, slug, domain);
    }),
  );
  const visitorPieces: (string | undefined)[] = [];
  const countryPieces: (string | undefined)[] = [];
  for (const ip of columns.ips) {
    const facts = attempt(() => factsOf(ip));
    visitorPieces.push(facts && clickRecordedPiece.visitorHash(facts.visitorHash));
    countryPieces.push(facts && clickRecordedPiece.country(facts.country));
  }
  const referrerPieces = columns.referers.map((referer) =>
    attempt(() =>
      clickRecordedPiece.referrer(
        storablePrefix(referrerOrigin(referer === null ? undefined : headerText(referer)), REFERRER_MAX),
      ),
    ),
  );
  const agentPieces = columns.userAgents.map((agent) =>
    attempt(() => clickRecordedPiece.userAgent(storablePrefix(headerText(agent), USER_AGENT_MAX))),
  );
  const n = columns.sequence.length;
  const lines: string[] = [];
  const linkIndex = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const clickedAt = columns.clickedAt[i]!;
    const address = columns.ipIndex[i]!;
    const link = columns.linkIndex[i]!;
    const linkPiece = linkPieces[link];
    const visitorPiece = visitorPieces[address];
    const referrerPiece = referrerPieces[columns.refererIndex[i]!];
    const countryPiece = countryPieces[address];
    const agentPiece = agentPieces[columns.userAgentIndex[i]!];
    if (
      linkPiece === undefined ||
      visitorPiece === undefined ||
      referrerPiece === undefined ||
      countryPiece === undefined ||
      agentPiece === undefined
    ) {
      continue;
    }
    // Not through `attempt`: a closure a click would be garbage a click.
    try {
      const line = clickRecordedJson(
        clickEventId(eventIdPrefix, clickedAt, columns.sequence[i]!),
        isoInstant(clickedAt),
        clickedAt,
        linkPiece,
        visitorPiece,
        referrerPiece,
        countryPiece,
        agentPiece,
        columns.scanned[i] === 1 ? 'qr' : undefined,
        columns.rule[i],
        columns.variant[i],
      );
      linkIndex[lines.length] = link;
      lines.push(line);
    } catch (err) {
      rejection ??= err;
    }
  }
  const rejected = n - lines.length;
  return {
    lines,
    linkIds: links.linkId,
    linkIndex: rejected === 0 ? linkIndex : linkIndex.subarray(0, lines.length),
    rejected,
    ...(rejected === 0 ? {} : { rejection }),
  };
}

/** Events already built (the bench's producers, tests) as the lines the redirector writes. */
export function eventLinesOf(events: readonly ClickRecorded[]): ClickEventLines {
  const linkIds: string[] = [];
  const known = new Map<string, number>();
  const linkIndex = new Uint32Array(events.length);
  events.forEach(({ data }, i) => {
    let link = known.get(data.linkId);
    if (link === undefined) {
      link = linkIds.push(data.linkId) - 1;
      known.set(data.linkId, link);
    }
    linkIndex[i] = link;
  });
  return { lines: events.map(clickRecordedJsonOf), linkIds, linkIndex, rejected: 0 };
}

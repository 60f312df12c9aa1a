import type { FastifyRequest } from 'fastify';
import type { Choice } from '@shortlink/redirect-rules';
import type { ResolvedLink } from '../resolved-link';
import type { ClickSink } from './click-sink';
import { filteredAs } from './countable-click';
import type { FilteredTally } from './filtered-tally';

export interface ClickRecorderOptions {
  sink: ClickSink;
  /** The next click's counter (the `next` of the sink's ClickEventIds). */
  nextSequence: () => number;
  now: () => number;
  /** Where redirects that are not clicks are counted, by reason (absent: they are only left out). */
  filtered?: FilteredTally;
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Captures answered redirects that a person made; only the facts are taken on the redirect path, and the sink makes the
 * events elsewhere. A visitor whose connection closed while the link was looked up never gets the redirect, and Node
 * cannot tell a gone socket's address: that is not a click, and taking it with an unknown address would fail its batch
 * on every retry.
 */
export function createClickRecorder({ sink, nextSequence, now, filtered }: ClickRecorderOptions) {
  return function onRedirect(
    request: FastifyRequest,
    link: ResolvedLink,
    scanned: boolean,
    choice: Choice | null = null,
  ): void {
    if (request.raw.socket.destroyed) return;
    const ip = request.ip;
    if (typeof ip !== 'string' || ip === '') return;
    const userAgent = header(request.headers['user-agent']);
    const filteredBy = filteredAs({
      method: request.method,
      userAgent,
      purpose: header(request.headers['purpose']),
      secPurpose: header(request.headers['sec-purpose']),
      xMoz: header(request.headers['x-moz']),
    });
    if (filteredBy !== undefined) {
      filtered?.count(link, filteredBy, now());
      return;
    }
    sink.push({
      sequence: nextSequence(),
      linkId: link.linkId,
      accountId: link.accountId,
      slug: link.slug,
      clickedAt: now(),
      ip,
      userAgent: userAgent ?? '',
      referer: header(request.headers.referer),
      scanned,
      // Always both fields, so every click has one shape.
      rule: choice?.matched === 'rule' ? choice.index : -1,
      variant: choice?.matched === 'variant' ? choice.index : -1,
    });
  };
}

import type { FastifyRequest } from 'fastify';
import type { ResolvedLink } from '../resolved-link';
import type { ClickSink } from './click-sink';
import { isCountable } from './countable-click';

export interface ClickRecorderOptions {
  sink: ClickSink;
  /** The next click's counter (the `next` of the sink's ClickEventIds). */
  nextSequence: () => number;
  now: () => number;
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Captures answered redirects that a person made. Only the facts are taken
 * here, on the redirect path; the sink turns them into events elsewhere.
 * A visitor whose connection closed while the link was looked up (a cache
 * miss waits for Postgres) never gets the redirect, and Node no longer knows
 * the address of a socket that is gone: that is not a click. Taken with an
 * unknown address, it once stopped every later click of the process (issue
 * 18's audit: the batch holding it failed on every retry).
 */
export function createClickRecorder({ sink, nextSequence, now }: ClickRecorderOptions) {
  return function onRedirect(request: FastifyRequest, link: ResolvedLink): void {
    if (request.raw.socket.destroyed) return;
    const ip = request.ip;
    if (typeof ip !== 'string' || ip === '') return;
    const userAgent = header(request.headers['user-agent']);
    const countable = isCountable({
      method: request.method,
      userAgent,
      purpose: header(request.headers['purpose']),
      secPurpose: header(request.headers['sec-purpose']),
      xMoz: header(request.headers['x-moz']),
    });
    if (!countable) return;
    sink.push({
      sequence: nextSequence(),
      linkId: link.linkId,
      accountId: link.accountId,
      slug: link.slug,
      clickedAt: now(),
      ip,
      userAgent: userAgent ?? '',
      referer: header(request.headers.referer),
    });
  };
}

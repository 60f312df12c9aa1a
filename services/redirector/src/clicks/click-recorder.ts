import type { FastifyRequest } from 'fastify';
import type { ResolvedLink } from '../link-cache';
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
 */
export function createClickRecorder({ sink, nextSequence, now }: ClickRecorderOptions) {
  return function onRedirect(request: FastifyRequest, link: ResolvedLink): void {
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
      ip: request.ip,
      userAgent: userAgent ?? '',
      referer: header(request.headers.referer),
    });
  };
}

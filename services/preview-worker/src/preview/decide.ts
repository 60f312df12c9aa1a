import {
  createEvent,
  type EventMeta,
  type LinkCreated,
  type LinkPreviewFailed,
  type LinkPreviewFetched,
} from '@shortlink/events';
import type { PreviewOutcome } from './fetch-preview';

/** The event that records a fetch's outcome for a link. Pure: the id and clock come in. */
export function previewEvent(
  link: LinkCreated,
  outcome: PreviewOutcome,
  meta: EventMeta,
): LinkPreviewFetched | LinkPreviewFailed {
  const { linkId, slug } = link.data;
  if (outcome.kind === 'fetched') {
    return createEvent<LinkPreviewFetched>(
      'LinkPreviewFetched',
      1,
      {
        linkId,
        slug,
        title: outcome.title,
        description: outcome.description,
        image: outcome.image,
        finalUrl: outcome.finalUrl,
      },
      meta,
    );
  }
  return createEvent<LinkPreviewFailed>('LinkPreviewFailed', 1, { linkId, slug, reason: outcome.reason }, meta);
}

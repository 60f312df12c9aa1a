import {
  createEvent,
  type EventMeta,
  type LinkCreated,
  type LinkEvent,
  type LinkPreviewFailed,
  type LinkPreviewFetched,
  type LinkUpdated,
} from '@shortlink/events';
import type { PreviewOutcome } from './fetch-preview';

/** A state of a link whose destination is to be previewed. */
export interface PreviewTarget {
  linkId: string;
  slug: string;
  destinationUrl: string;
  version: number;
}

/** A link to preview, and its account: the fetch counts against that account's share of the slots. */
export interface PreviewRequest extends PreviewTarget {
  accountId: string;
}

/**
 * Which link events call for a fetch: a creation, and a change of
 * destination. A change of tag alone, a deletion and the previews themselves
 * do not. Pure.
 */
export function previewTarget(event: LinkEvent): PreviewRequest | null {
  if (event.type === 'LinkCreated') return targetOf(event, 1);
  if (event.type === 'LinkUpdated' && event.data.changedFields.includes('destinationUrl')) {
    return targetOf(event, event.data.version);
  }
  return null;
}

function targetOf(event: LinkCreated | LinkUpdated, version: number): PreviewRequest {
  const { linkId, accountId, slug, destinationUrl } = event.data;
  return { linkId, accountId, slug, destinationUrl, version };
}

/** The event that records a fetch's outcome for a link. Pure: the id and clock come in. */
export function previewEvent(
  link: PreviewTarget,
  outcome: PreviewOutcome,
  meta: EventMeta,
): LinkPreviewFetched | LinkPreviewFailed {
  const { linkId, slug } = link;
  const previewed = { linkVersion: link.version, destinationUrl: link.destinationUrl };
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
        ...previewed,
      },
      meta,
    );
  }
  return createEvent<LinkPreviewFailed>(
    'LinkPreviewFailed',
    1,
    { linkId, slug, reason: outcome.reason, ...previewed },
    meta,
  );
}

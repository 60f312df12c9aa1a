import { decodeEvent, linkEvent } from '@shortlink/events';
import type { LogRecord } from '@shortlink/event-log';

/** A row of `link_tags`: a link's tag as of its event `version` ('' for no tag), or its deletion (`deleted` 1). */
export type LinkTagRow = [accountId: string, linkId: string, deleted: 0 | 1, tag: string, version: number];

export const LINK_TAG_COLUMNS = ['account_id', 'link_id', 'deleted', 'tag', 'version'] as const;

export type LinkTagOutcome =
  | { kind: 'row'; row: LinkTagRow }
  /** A preview event (no tag in it), or a record that is no link event. */
  | { kind: 'none'; reason: 'no-tag-change' | 'not-a-link-event' };

/**
 * The `link_tags` row of one record of the links topic. LinkCreated (version 1) and LinkUpdated carry the link's whole
 * tag; a LinkDeleted carries none and is a row of its own kind, so the link's last tag stays (its clicks stay in the
 * account's figures under it). A record that is no valid link event is the link projector's to park on the
 * dead-letter topic: here it is only passed over.
 */
export function linkTagRow(record: LogRecord): LinkTagOutcome {
  const decoded = decodeEvent(linkEvent, record.value);
  if (!decoded.ok) return { kind: 'none', reason: 'not-a-link-event' };
  const event = decoded.event;
  switch (event.type) {
    case 'LinkCreated':
      return { kind: 'row', row: [event.data.accountId, event.data.linkId, 0, event.data.tag ?? '', 1] };
    case 'LinkUpdated':
      return {
        kind: 'row',
        row: [event.data.accountId, event.data.linkId, 0, event.data.tag ?? '', event.data.version],
      };
    case 'LinkDeleted':
      return { kind: 'row', row: [event.data.accountId, event.data.linkId, 1, '', event.data.version] };
    default:
      return { kind: 'none', reason: 'no-tag-change' };
  }
}

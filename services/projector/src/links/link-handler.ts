import type { Pool } from 'pg';
import { decodeEvent, linkEvent } from '@shortlink/events';
import { OK, type MessageHandler } from '@shortlink/kafka';
import { projectLinkCreated } from './project-link';
import { projectLinkChange } from './project-link-change';
import { projectLinkPreview } from './project-preview';

/** Parses each message of the links topic at the boundary and projects it. */
export function linkEventHandler(pool: Pool): MessageHandler {
  return async (message, context) => {
    const decoded = decodeEvent(linkEvent, message.value);
    if (!decoded.ok) return { kind: 'dead-letter', reason: `${decoded.reason}: ${decoded.detail}` };
    switch (decoded.event.type) {
      case 'LinkCreated':
        await projectLinkCreated(pool, decoded.event, { partition: context.partition, offset: context.offset });
        return OK;
      case 'LinkUpdated':
      case 'LinkDeleted':
        await projectLinkChange(pool, decoded.event, { partition: context.partition, offset: context.offset });
        return OK;
      case 'LinkPreviewFetched':
      case 'LinkPreviewFailed':
        await projectLinkPreview(pool, decoded.event);
        return OK;
    }
  };
}

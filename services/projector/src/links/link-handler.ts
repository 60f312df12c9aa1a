import type { Pool } from 'pg';
import { decodeEvent, linkEvent, type LinkEvent } from '@shortlink/events';
import { OK, type MessageContext, type MessageHandler } from '@shortlink/event-log';
import { projectLinkCreated } from './project-link';
import type { ProjectorMetricSet } from '../projector-metrics';
import { projectLinkChange } from './project-link-change';
import { projectLinkPreview } from './project-preview';

/** Parses each message of the links topic at the boundary and projects it; each is one write to Postgres. */
export function linkEventHandler(pool: Pool, metrics: ProjectorMetricSet): MessageHandler {
  return async (message, context) => {
    const decoded = decodeEvent(linkEvent, message.value);
    if (!decoded.ok) return { kind: 'dead-letter', reason: `${decoded.reason}: ${decoded.detail}` };
    const timer = metrics.insertDuration.startTimer({ projection: 'links' });
    try {
      await projectEvent(pool, decoded.event, context);
    } finally {
      timer();
    }
    metrics.rows.inc({ projection: 'links' });
    return OK;
  };
}

/** One link event into Postgres. */
async function projectEvent(pool: Pool, event: LinkEvent, context: MessageContext): Promise<void> {
  const source = { partition: context.partition, offset: context.offset };
  switch (event.type) {
    case 'LinkCreated':
      return projectLinkCreated(pool, event, source);
    case 'LinkUpdated':
    case 'LinkDeleted':
      await projectLinkChange(pool, event, source);
      return;
    case 'LinkPreviewFetched':
    case 'LinkPreviewFailed':
      return projectLinkPreview(pool, event);
  }
}

import { createHash } from 'node:crypto';
import { domainOf, routingOf, type ClickRecorded, type LinkEvent } from '@shortlink/events';
import type { WebhookEventType } from '@shortlink/webhooks';

/** One message as it is queued for each subscribed endpoint of its account. */
export interface WebhookMessage {
  /** The `webhook-id` header: the same for every endpoint, every retry and every re-read of the event. */
  messageId: string;
  type: WebhookEventType;
  accountId: string;
  /** A link's id: one link's messages reach an endpoint one after another. Null: no order to keep. */
  orderingKey: string | null;
  /** When its event happened (a click batch: its oldest click): endpoints created later do not get it. */
  occurredAt: string;
  /** The body, exactly as sent: `{type, timestamp, data}`. */
  payload: string;
}

/** A click as `link.clicked` carries it: ClickRecorded's fields less the account; never an IP. */
export interface WebhookClick {
  eventId: string;
  linkId: string;
  slug: string;
  clickedAt: string;
  visitorHash: string;
  referrer: string;
  country: string;
  userAgent: string;
  /** The link's branded domain, null for the installation's own: added after the first payloads, so last. */
  domain: string | null;
}

const body = (type: WebhookEventType, timestamp: string, data: object) => JSON.stringify({ type, timestamp, data });

/**
 * The message of a link event, or null for the events no webhook carries
 * (previews). Its id is the event's id, so reading the event twice queues it
 * once (the queue's unique index on endpoint and message id). Pure.
 */
export function linkEventMessage(event: LinkEvent): WebhookMessage | null {
  const messageId = `msg_${event.eventId}`;
  switch (event.type) {
    case 'LinkCreated': {
      const { linkId, accountId, slug, destinationUrl, tag } = event.data;
      // rules, variants and domain: added after the first payloads, so after the fields those had.
      const data = {
        id: linkId,
        slug,
        destinationUrl,
        tag,
        version: 1,
        ...routingOf(event.data),
        domain: domainOf(event.data),
      };
      return message(
        messageId,
        event.occurredAt,
        'link.created',
        accountId,
        linkId,
        body('link.created', event.occurredAt, data),
      );
    }
    case 'LinkUpdated': {
      const { linkId, accountId, slug, destinationUrl, tag, version, changedFields } = event.data;
      const routed = { ...routingOf(event.data), domain: domainOf(event.data) };
      const data = { id: linkId, slug, destinationUrl, tag, version, changedFields, ...routed };
      return message(
        messageId,
        event.occurredAt,
        'link.updated',
        accountId,
        linkId,
        body('link.updated', event.occurredAt, data),
      );
    }
    case 'LinkDeleted': {
      const { linkId, accountId, slug, version } = event.data;
      // domain: added after the first payloads, so after the fields those had.
      const data = { id: linkId, slug, version, domain: domainOf(event.data) };
      return message(
        messageId,
        event.occurredAt,
        'link.deleted',
        accountId,
        linkId,
        body('link.deleted', event.occurredAt, data),
      );
    }
    default:
      return null;
  }
}

function message(
  messageId: string,
  occurredAt: string,
  type: WebhookEventType,
  accountId: string,
  orderingKey: string,
  payload: string,
): WebhookMessage {
  return { messageId, type, accountId, orderingKey, occurredAt, payload };
}

/**
 * One `link.clicked` message for a batch of one account's clicks (in the
 * order read). Its id hashes the clicks' event ids, so the same batch read
 * again is queued once; a batch cut differently on a re-read is a new
 * message, which each click's `eventId` lets a receiver deduplicate.
 * Its timestamp is the newest click's event time. Pure.
 */
export function clickBatchMessage(clicks: readonly ClickRecorded[]): WebhookMessage {
  const first = clicks[0];
  if (first === undefined) throw new Error('a click batch holds at least one click');
  const hash = createHash('sha256');
  for (const click of clicks) hash.update(click.eventId).update(',');
  const timestamp = clicks.reduce((newest, c) => (c.occurredAt > newest ? c.occurredAt : newest), first.occurredAt);
  const oldest = clicks.reduce((old, c) => (c.occurredAt < old ? c.occurredAt : old), first.occurredAt);
  const data = { clicks: clicks.map(webhookClick) };
  return {
    messageId: `msg_clicks_${hash.digest('hex').slice(0, 32)}`,
    type: 'link.clicked',
    accountId: first.data.accountId,
    orderingKey: null,
    occurredAt: oldest,
    payload: body('link.clicked', timestamp, data),
  };
}

function webhookClick(click: ClickRecorded): WebhookClick {
  // Every field named: a field added to ClickRecorded later is not sent until it is chosen here.
  const { linkId, slug, clickedAt, visitorHash, referrer, country, userAgent, domain } = click.data;
  return {
    eventId: click.eventId,
    linkId,
    slug,
    clickedAt: new Date(clickedAt).toISOString(),
    visitorHash,
    referrer,
    country,
    userAgent,
    domain: domain ?? null,
  };
}

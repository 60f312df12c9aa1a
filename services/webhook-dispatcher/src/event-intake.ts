import { decodeClickRecord, decodeEvent, linkEvent, type ClickRecorded } from '@shortlink/events';
import {
  EVENT_HEADERS,
  HANDLED_LATER,
  type DeferredRecordHandler,
  type HeaderValue,
  type KafkaLogger,
  type LogRecord,
  type RecordInHand,
} from '@shortlink/event-log';
import { ClickBatcher, type ClickBatcherOptions } from './click-batcher';
import type { Enqueued } from './delivery-queue';
import { subscribedTo, type Subscribers } from './subscriptions';
import { clickBatchMessage, linkEventMessage, type WebhookMessage } from './webhook-message';

export interface EventIntakeDeps {
  linksTopic: string;
  clicksTopic: string;
  subscribers: Subscribers;
  /** Queues messages for their endpoints in one statement; resolves with the rows added. */
  enqueue: (items: readonly Enqueued[]) => Promise<number>;
  /** After each enqueue: the dispatcher is woken, the metric counted. */
  queued: (added: number) => void;
  batching: ClickBatcherOptions;
  logger: KafkaLogger;
  now?: () => number;
}

export interface EventIntake {
  take: DeferredRecordHandler;
  /** Gives up every record not yet queued: they stay uncommitted, read again by the next owner. */
  stop(): void;
}

/** A message waiting to be queued, and what to settle once it is. */
interface Pending {
  message: WebhookMessage;
  queued: () => void;
}

/** A clicks record: handled once every one of its clicks' batches is queued. */
interface ClickTicket {
  left: number;
  inHand: RecordInHand;
}

interface HeldClick {
  click: ClickRecorded;
  ticket: ClickTicket;
}

const LINK_TYPES = new Set(['LinkCreated', 'LinkUpdated', 'LinkDeleted']);
/** Messages queued in one statement, at most. */
const ENQUEUE_MAX = 1000;
const BACKOFF_MAX_MS = 5000;

/**
 * What the consumer takes from the topics: each record parsed with the events'
 * schemas, turned into messages (a link event one each; clicks batched per
 * account, 100 or 1 s), and queued for the account's subscribed endpoints in
 * one statement per round, in the order read, then handled so the consumer
 * commits past it (at least once: a record is committed only once queued).
 */
export function createEventIntake(deps: EventIntakeDeps): EventIntake {
  const now = deps.now ?? Date.now;
  const batcher = new ClickBatcher<HeldClick>(deps.batching);
  let pending: Pending[] = [];
  let stopping = false;
  let flushing: Promise<void> | undefined;
  let batchTimer: NodeJS.Timeout | undefined;
  const held = new Set<RecordInHand>();

  function flushSoon(): void {
    if (!flushing && !stopping) flushing = flush().finally(() => (flushing = undefined));
  }

  async function flush(): Promise<void> {
    for (let failures = 0; pending.length > 0 && !stopping;) {
      const round = pending.slice(0, ENQUEUE_MAX);
      try {
        const subscribers = await deps.subscribers(round.map((p) => p.message.accountId));
        const items = round.map((p) => ({
          message: p.message,
          webhookIds: subscribedTo(subscribers.get(p.message.accountId), p.message),
        }));
        const added = await deps.enqueue(items);
        failures = 0;
        pending = pending.slice(round.length);
        for (const p of round) p.queued();
        if (added > 0) deps.queued(added);
      } catch (err) {
        failures++;
        deps.logger.warn({ err, failures }, 'queuing webhook messages failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MAX_MS, 100 * 2 ** failures)));
      }
    }
  }

  function closeBatches(): void {
    clearTimeout(batchTimer);
    batchTimer = undefined;
    for (const batch of batcher.due(now())) queueBatch(batch.items);
    armBatchTimer();
  }

  function armBatchTimer(): void {
    const due = batcher.nextDueAt();
    if (due === undefined || batchTimer || stopping) return;
    batchTimer = setTimeout(closeBatches, Math.max(0, due - now()));
  }

  function queueBatch(items: HeldClick[]): void {
    pending.push({
      message: clickBatchMessage(items.map((h) => h.click)),
      queued: () => {
        for (const { ticket } of items) {
          if (--ticket.left === 0) {
            held.delete(ticket.inHand);
            ticket.inHand.handled();
          }
        }
      },
    });
    flushSoon();
  }

  const take: DeferredRecordHandler = (record, context, inHand) => {
    if (context.topic === deps.linksTopic) {
      const message = linkRecordMessage(record);
      if (typeof message === 'string') return { kind: 'drop', reason: message };
      held.add(inHand);
      pending.push({
        message,
        queued: () => {
          held.delete(inHand);
          inHand.handled();
        },
      });
      flushSoon();
      return HANDLED_LATER;
    }
    if (context.topic === deps.clicksTopic) {
      const clicks = recordClicks(record);
      if (clicks.length === 0) return { kind: 'drop', reason: 'no valid click in the record' };
      const ticket: ClickTicket = { left: clicks.length, inHand };
      held.add(inHand);
      const at = now();
      for (const click of clicks) {
        const full = batcher.add(click.data.accountId, { click, ticket }, at);
        if (full) queueBatch(full.items);
      }
      armBatchTimer();
      return HANDLED_LATER;
    }
    return { kind: 'drop', reason: `not a topic of the dispatcher: ${context.topic}` };
  };

  return {
    take,
    stop() {
      stopping = true;
      clearTimeout(batchTimer);
      for (const inHand of held) inHand.release();
      held.clear();
      pending = [];
      batcher.all();
    },
  };
}

/**
 * The message of a links-topic record, or why it has none. Shared by the live
 * path and replays, so that a replayed event keeps its message and its id.
 */
export function linkRecordMessage(record: Pick<LogRecord, 'headers' | 'value'>): WebhookMessage | string {
  // The previews are half the topic: known by their header, they are not parsed.
  const type = headerText(record.headers?.[EVENT_HEADERS.type]);
  if (type !== undefined && !LINK_TYPES.has(type)) return `no webhook for ${type}`;
  // A malformed event is dropped, not parked: the link projector parks it already.
  const decoded = decodeEvent(linkEvent, record.value);
  if (!decoded.ok) return `${decoded.reason}: ${decoded.detail}`;
  return linkEventMessage(decoded.event) ?? `no webhook for ${decoded.event.type}`;
}

/** The valid clicks of a clicks-topic record, in its order (a malformed line is skipped). */
export function recordClicks(record: Pick<LogRecord, 'value'>): ClickRecorded[] {
  return decodeClickRecord(record.value).flatMap((line) => (line.result.ok ? [line.result.event] : []));
}

function headerText(value: HeaderValue): string | undefined {
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return last === undefined ? undefined : last.toString();
}

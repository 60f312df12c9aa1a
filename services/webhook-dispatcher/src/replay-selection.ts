import type { WebhookEventType } from '@shortlink/webhooks';
import type { LogRecord } from '@shortlink/event-log';
import { linkRecordMessage, recordClicks } from './event-intake';
import { clickBatchMessage, type WebhookMessage } from './webhook-message';
import type { ClickRecorded } from '@shortlink/events';

/** What a replay takes of the log: one account's events of some types, that happened within [since, until]. */
export interface ReplayWindow {
  accountId: string;
  types: ReadonlySet<WebhookEventType>;
  sinceMs: number;
  /** Null: no upper bound but where the log stood when the replay started. */
  untilMs: number | null;
}

/** Whether an event time falls within the window, both ends included. */
export function inWindow(window: ReplayWindow, occurredAt: string): boolean {
  const at = Date.parse(occurredAt);
  return at >= window.sinceMs && (window.untilMs === null || at <= window.untilMs);
}

/** The message of a links-topic record if the replay takes it: built as the live path builds it, same id. Pure. */
export function replayedLinkMessage(window: ReplayWindow, record: Pick<LogRecord, 'headers' | 'value'>) {
  const message = linkRecordMessage(record);
  if (typeof message === 'string') return null;
  const taken =
    message.accountId === window.accountId && window.types.has(message.type) && inWindow(window, message.occurredAt);
  return taken ? message : null;
}

/**
 * The replay's clicks of one partition, in log order, cut into messages of
 * `maxItems` (100, as live): the cut depends only on the log, so a replay run
 * again forms the same messages and the index per replay absorbs them. The
 * live path also cuts at 1 s of waiting, so its ids may differ: receivers
 * deduplicate clicks on their `eventId`, as docs/webhooks.md says.
 */
export class ReplayClicks {
  private held: ClickRecorded[] = [];

  constructor(
    private readonly window: ReplayWindow,
    private readonly maxItems = 100,
  ) {}

  /** Takes a record's clicks of the window; returns the messages they filled. */
  add(record: Pick<LogRecord, 'value'>): WebhookMessage[] {
    const full: WebhookMessage[] = [];
    for (const click of recordClicks(record)) {
      if (click.data.accountId !== this.window.accountId || !inWindow(this.window, click.occurredAt)) continue;
      this.held.push(click);
      if (this.held.length >= this.maxItems) full.push(clickBatchMessage(this.held.splice(0)));
    }
    return full;
  }

  /** The clicks left at the partition's end, as one message (none when there are none). */
  rest(): WebhookMessage[] {
    return this.held.length === 0 ? [] : [clickBatchMessage(this.held.splice(0))];
  }
}

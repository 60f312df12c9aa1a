import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { WEBHOOK_ERRORS, type WebhookEventType } from '@shortlink/webhooks';
import { isRecord } from '../../links/rules/create-link-validation';
import { unknownField } from '../../links/rules/unknown-fields';
import { parseEvents } from './webhook-events';

export interface ReplayRequest {
  since: Date;
  until: Date | null;
  events: WebhookEventType[];
}

const REPLAY_FIELDS = ['since', 'until', 'events'];
/** An ISO 8601 date-time with a zone (`Z` or an offset): a time without one names no instant. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * `POST /api/v1/webhooks/:id/replay`: `since` a time not in the future,
 * `until` (optional) after it and not in the future, `events` (optional, the
 * webhook's own by default) a subset of the webhook's events. Whether the log
 * still holds `since` is the dispatcher's to find out. Pure: the clock is given.
 */
export function validateReplay(
  body: unknown,
  webhookEvents: readonly WebhookEventType[],
  now: Date,
): { ok: true; value: ReplayRequest } | { ok: false; error: HttpError } {
  const fail = (error: HttpError) => ({ ok: false as const, error });
  const window = (detail: string, field: string) => fail(WEBHOOK_ERRORS.invalidReplayWindow.withDetail(detail, field));
  if (!isRecord(body)) {
    return fail(
      WEBHOOK_ERRORS.invalidBody.withDetail(`A replay is ${kindOf(body)}: expected a JSON object with since.`),
    );
  }
  const unknown = unknownField(body, REPLAY_FIELDS);
  if (unknown) return fail(WEBHOOK_ERRORS.unknownReplayField.withDetail(unknown.detail, unknown.field));
  const since = timeOf(body.since);
  if (typeof since === 'string') return window(`since ${since}`, 'since');
  if (since === null) return window('since is missing: the time to replay from.', 'since');
  if (since > now) return window(`since is in the future (${since.toISOString()}).`, 'since');
  let until: Date | null = null;
  if (body.until !== undefined && body.until !== null) {
    const parsed = timeOf(body.until);
    if (typeof parsed === 'string') return window(`until ${parsed}`, 'until');
    if (parsed === null) return window('until is missing.', 'until');
    if (parsed <= since) return window('until must be after since.', 'until');
    if (parsed > now)
      return window(`until is in the future (${parsed.toISOString()}); leave it out to replay up to now.`, 'until');
    until = parsed;
  }
  const events =
    body.events === undefined
      ? { ok: true as const, events: [...webhookEvents] }
      : parseEvents(body.events, webhookEvents);
  if (!events.ok) return events;
  return { ok: true, value: { since, until, events: events.events } };
}

/** A time, null when absent, or the sentence saying what is wrong with it. */
function timeOf(value: unknown): Date | null | string {
  if (value === undefined) return null;
  if (typeof value !== 'string')
    return `must be an ISO 8601 time such as 2026-11-21T09:30:00Z; received ${kindOf(value)}.`;
  const time = new Date(value);
  if (!ISO_TIME.test(value) || Number.isNaN(time.getTime())) {
    return `must be an ISO 8601 time with a zone, such as 2026-11-21T09:30:00Z; received ${excerpt(value)}.`;
  }
  return time;
}

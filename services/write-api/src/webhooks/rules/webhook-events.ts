import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import {
  WEBHOOK_ERRORS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  isWebhookEventType,
  type WebhookEventType,
} from '@shortlink/webhooks';

const VALID = WEBHOOK_EVENT_TYPES.join(', ');

/**
 * An `events` list: a non-empty array of distinct event types, each among
 * `allowed` (every type, or a webhook's own for a replay). A refusal names
 * the bad value and lists the valid ones.
 */
export function parseEvents(
  value: unknown,
  allowed: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES,
): { ok: true; events: WebhookEventType[] } | { ok: false; error: HttpError } {
  const fail = (detail: string) => ({
    ok: false as const,
    error: WEBHOOK_ERRORS.invalidEvents.withDetail(detail, 'events'),
  });
  const valid = allowed.join(', ');
  if (!Array.isArray(value))
    return fail(`events must be an array of event types; received ${kindOf(value)}. Valid: ${VALID}.`);
  if (value.length === 0) return fail(`events is empty: name at least one of ${valid}.`);
  const seen = new Set<string>();
  for (const item of value as unknown[]) {
    if (typeof item !== 'string') return fail(`events holds ${kindOf(item)}; valid: ${valid}.`);
    if (item === WEBHOOK_TEST_EVENT) {
      return fail(
        `${WEBHOOK_TEST_EVENT} is sent only by POST /api/v1/webhooks/{id}/test, never subscribed to; valid: ${valid}.`,
      );
    }
    if (!isWebhookEventType(item)) return fail(`events holds ${excerpt(item)}, not an event type; valid: ${valid}.`);
    if (!allowed.includes(item))
      return fail(`events holds ${excerpt(item)}, which this webhook is not sent; valid: ${valid}.`);
    if (seen.has(item)) return fail(`events lists ${excerpt(item)} twice.`);
    seen.add(item);
  }
  // Stored and shown in one order, whatever the request's.
  return { ok: true, events: WEBHOOK_EVENT_TYPES.filter((t) => seen.has(t)) };
}

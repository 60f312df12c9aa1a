import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { WEBHOOK_ERRORS, WEBHOOK_LIMITS, type WebhookEventType } from '@shortlink/webhooks';
import { isRecord } from '../../links/rules/create-link-validation';
import { unknownField } from '../../links/rules/unknown-fields';
import { parseEvents } from './webhook-events';
import { webhookUrlRejection, type WebhookUrlPolicy } from './webhook-url';

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description: string | null;
}

export interface WebhookChanges {
  url?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
  /** null removes it. */
  description?: string | null;
}

type Result<T> = { ok: true; value: T } | { ok: false; error: HttpError };
const fail = (error: HttpError) => ({ ok: false as const, error });

const CREATE_FIELDS = ['url', 'events', 'description'];
const CHANGE_FIELDS = ['url', 'events', 'enabled', 'description'];
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `POST /api/v1/webhooks`: the body, then url, events and description, the first problem answered. Pure. */
export function validateCreateWebhook(body: unknown, policy: WebhookUrlPolicy): Result<NewWebhook> {
  if (!isRecord(body)) {
    return fail(
      WEBHOOK_ERRORS.invalidBody.withDetail(
        `A webhook is ${kindOf(body)}: expected a JSON object with url and events.`,
      ),
    );
  }
  const unknown = unknownField(body, CREATE_FIELDS);
  if (unknown) return fail(WEBHOOK_ERRORS.unknownCreateField.withDetail(unknown.detail, unknown.field));
  const urlProblem = webhookUrlRejection(body.url, policy);
  if (urlProblem) return fail(urlProblem);
  if (body.events === undefined) return fail(WEBHOOK_ERRORS.invalidEvents.withDetail('events is missing.', 'events'));
  const events = parseEvents(body.events);
  if (!events.ok) return events;
  const description = descriptionOf(body.description ?? null);
  if (!description.ok) return description;
  return { ok: true, value: { url: body.url as string, events: events.events, description: description.value } };
}

/** `PATCH /api/v1/webhooks/:id`: only these fields, at least one. Pure. */
export function validateWebhookChange(body: unknown, policy: WebhookUrlPolicy): Result<WebhookChanges> {
  if (!isRecord(body)) {
    return fail(WEBHOOK_ERRORS.invalidBody.withDetail(`A change is ${kindOf(body)}: expected a JSON object.`));
  }
  const unknown = unknownField(body, CHANGE_FIELDS);
  if (unknown) return fail(WEBHOOK_ERRORS.unknownChangeField.withDetail(unknown.detail, unknown.field));
  if (Object.keys(body).length === 0) return fail(WEBHOOK_ERRORS.emptyChange);
  const changes: WebhookChanges = {};
  if ('url' in body) {
    const urlProblem = webhookUrlRejection(body.url, policy);
    if (urlProblem) return fail(urlProblem);
    changes.url = body.url as string;
  }
  if ('events' in body) {
    const events = parseEvents(body.events);
    if (!events.ok) return events;
    changes.events = events.events;
  }
  if ('enabled' in body) {
    if (typeof body.enabled !== 'boolean') {
      return fail(
        WEBHOOK_ERRORS.invalidBody.withDetail(
          `enabled must be true or false; received ${kindOf(body.enabled)}.`,
          'enabled',
        ),
      );
    }
    changes.enabled = body.enabled;
  }
  if ('description' in body) {
    const description = descriptionOf(body.description);
    if (!description.ok) return description;
    changes.description = description.value;
  }
  return { ok: true, value: changes };
}

function descriptionOf(value: unknown): Result<string | null> {
  if (value === null) return { ok: true, value: null };
  const problem = (detail: string) => fail(WEBHOOK_ERRORS.invalidDescription.withDetail(detail, 'description'));
  if (typeof value !== 'string') return problem(`description must be a string or null; received ${kindOf(value)}.`);
  const length = Array.from(value).length;
  const max = WEBHOOK_LIMITS.descriptionMaxLength;
  if (length > max) return problem(`description is ${length} characters; at most ${max}.`);
  if (CONTROL.test(value)) return problem(`description holds a control character: received ${excerpt(value)}.`);
  return { ok: true, value };
}

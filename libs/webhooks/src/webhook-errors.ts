import { excerpt, HTTP_ERRORS, HttpError, httpError } from '@shortlink/http';
import { WEBHOOK_EVENT_TYPES } from './event-types';
import { WEBHOOK_LIMITS } from './webhook-limits';

/**
 * The webhooks API's error texts, each once. A refusal names the field in
 * `field` and says in `detail` what was received; the texts themselves are
 * stable.
 */
const EVENT_LIST = WEBHOOK_EVENT_TYPES.join(', ');

export const WEBHOOK_ERRORS = {
  /** An unknown id, a deleted webhook and another account's alike: existence does not leak. */
  notFound: new HttpError(404, 'Webhook not found', 'not_found', {
    detail: 'This account has no webhook with this id (or it was deleted).',
  }),
  invalidBody: httpError(HTTP_ERRORS.invalidBody),
  unknownCreateField: new HttpError(400, 'Only url, events and description can be given', 'unknown_field', {
    detail: 'The body names a field a webhook create does not take.',
  }),
  unknownChangeField: new HttpError(400, 'Only url, events, enabled and description can be changed', 'unknown_field', {
    detail: 'The body names a field a webhook change does not take.',
  }),
  unknownReplayField: new HttpError(400, 'Only since, until and events can be given', 'unknown_field', {
    detail: 'The body names a field a replay does not take.',
  }),
  emptyChange: new HttpError(400, 'Nothing to change: give url, events, enabled or description', 'empty_change', {
    detail: 'The body is {}.',
  }),
  invalidUrl: new HttpError(400, 'Webhook URLs must be absolute https URLs with a host', 'invalid_webhook_url', {
    detail: 'url must be an absolute https URL with a host.',
    field: 'url',
  }),
  urlTooLong: new HttpError(400, `URLs must be at most ${WEBHOOK_LIMITS.urlMaxLength} characters`, 'url_too_long', {
    detail: `url is over ${WEBHOOK_LIMITS.urlMaxLength} characters.`,
    field: 'url',
  }),
  httpsRequired: new HttpError(400, 'Webhook URLs must use https', 'webhook_url_not_https', {
    detail: 'url uses http; this installation takes https only.',
    field: 'url',
  }),
  urlCredentials: new HttpError(400, 'Webhook URLs must not contain a user name or password', 'url_credentials', {
    detail: 'url holds a user name or password.',
    field: 'url',
  }),
  urlPrivate: new HttpError(
    400,
    'Webhook URLs must not point at loopback, private, link-local or metadata addresses',
    'webhook_url_private',
    { detail: 'url points at a loopback, private, link-local or metadata address.', field: 'url' },
  ),
  urlSelf: new HttpError(400, 'Webhook URLs must not point at this short-link service', 'url_self_reference', {
    detail: 'url points at this short-link service.',
    field: 'url',
  }),
  invalidEvents: new HttpError(400, `events must be a non-empty list of: ${EVENT_LIST}`, 'invalid_events', {
    detail: `events must name one or more of ${EVENT_LIST}, each once.`,
    field: 'events',
  }),
  invalidDescription: new HttpError(
    400,
    `Descriptions must be at most ${WEBHOOK_LIMITS.descriptionMaxLength} characters without control characters`,
    'invalid_description',
    {
      detail: `description must be at most ${WEBHOOK_LIMITS.descriptionMaxLength} characters without control characters.`,
      field: 'description',
    },
  ),
  invalidReplayWindow: new HttpError(
    400,
    'since must be an ISO 8601 time not in the future, and until a later one',
    'invalid_replay_window',
    { detail: 'since must be a time with a zone, not in the future; until, a later one.', field: 'since' },
  ),
  invalidLimit: new HttpError(
    400,
    `limit must be a whole number from 1 to ${WEBHOOK_LIMITS.maxPageSize}`,
    'invalid_limit',
    { detail: `limit must be from 1 to ${WEBHOOK_LIMITS.maxPageSize}.`, field: 'limit' },
  ),
  invalidCursor: new HttpError(400, 'Invalid cursor: pass nextCursor from a previous page as it is', 'invalid_cursor', {
    detail: 'cursor is not a nextCursor of this list.',
    field: 'cursor',
  }),
  limitReached: new HttpError(
    403,
    `An account may have at most ${WEBHOOK_LIMITS.perAccount} webhooks: delete one first`,
    'webhook_limit_reached',
    { detail: `This account has ${WEBHOOK_LIMITS.perAccount} webhooks already.` },
  ),
  disabled: new HttpError(
    409,
    'This webhook is disabled: enable it first (PATCH with enabled: true)',
    'webhook_disabled',
    { detail: 'The webhook is disabled; PATCH it with enabled: true first.' },
  ),
} as const;

/** The 404 of a webhook id, naming it: the same for an unknown id and another account's webhook. */
export const webhookNotFound = (id: string): HttpError =>
  WEBHOOK_ERRORS.notFound.withDetail(`This account has no webhook ${excerpt(id)} (or it was deleted).`);

const DISABLED_BECAUSE = {
  user: 'it was disabled through the API',
  gone: 'its endpoint answered 410 Gone',
  failing: 'its endpoint failed every attempt for 24 hours',
} as const;

/** The 409 of a disabled webhook, saying why it was disabled. */
export const webhookDisabled = (reason: keyof typeof DISABLED_BECAUSE | null): HttpError =>
  WEBHOOK_ERRORS.disabled.withDetail(
    `The webhook is disabled (${reason === null ? 'no reason recorded' : DISABLED_BECAUSE[reason]}); PATCH it with enabled: true first.`,
  );

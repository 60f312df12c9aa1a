import { HttpError } from '@shortlink/http';
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
  notFound: new HttpError(404, 'Webhook not found', 'not_found'),
  invalidBody: new HttpError(400, 'Invalid request body', 'invalid_body'),
  unknownCreateField: new HttpError(400, 'Only url, events and description can be given', 'unknown_field'),
  unknownChangeField: new HttpError(400, 'Only url, events, enabled and description can be changed', 'unknown_field'),
  unknownReplayField: new HttpError(400, 'Only since, until and events can be given', 'unknown_field'),
  emptyChange: new HttpError(400, 'Nothing to change: give url, events, enabled or description', 'empty_change'),
  invalidUrl: new HttpError(400, 'Webhook URLs must be absolute https URLs with a host', 'invalid_webhook_url'),
  urlTooLong: new HttpError(400, `URLs must be at most ${WEBHOOK_LIMITS.urlMaxLength} characters`, 'url_too_long'),
  httpsRequired: new HttpError(400, 'Webhook URLs must use https', 'webhook_url_not_https'),
  urlCredentials: new HttpError(400, 'Webhook URLs must not contain a user name or password', 'url_credentials'),
  urlPrivate: new HttpError(
    400,
    'Webhook URLs must not point at loopback, private, link-local or metadata addresses',
    'webhook_url_private',
  ),
  urlSelf: new HttpError(400, 'Webhook URLs must not point at this short-link service', 'url_self_reference'),
  invalidEvents: new HttpError(400, `events must be a non-empty list of: ${EVENT_LIST}`, 'invalid_events'),
  invalidDescription: new HttpError(
    400,
    `Descriptions must be at most ${WEBHOOK_LIMITS.descriptionMaxLength} characters without control characters`,
    'invalid_description',
  ),
  invalidReplayWindow: new HttpError(
    400,
    'since must be an ISO 8601 time not in the future, and until a later one',
    'invalid_replay_window',
  ),
  invalidLimit: new HttpError(
    400,
    `limit must be a whole number from 1 to ${WEBHOOK_LIMITS.maxPageSize}`,
    'invalid_limit',
  ),
  invalidCursor: new HttpError(400, 'Invalid cursor: pass nextCursor from a previous page as it is', 'invalid_cursor'),
  limitReached: new HttpError(
    403,
    `An account may have at most ${WEBHOOK_LIMITS.perAccount} webhooks: delete one first`,
    'webhook_limit_reached',
  ),
  disabled: new HttpError(
    409,
    'This webhook is disabled: enable it first (PATCH with enabled: true)',
    'webhook_disabled',
  ),
} as const;

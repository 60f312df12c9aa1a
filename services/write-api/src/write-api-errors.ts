import { PLANS, type Plan } from '@shortlink/accounts';
import { excerpt, explain, HTTP_ERRORS, HttpError, type Rejection } from '@shortlink/http';

export { explain, type Rejection };

/**
 * The write API's own error texts. Those of the Link resource (not found, not
 * settled) are in `@shortlink/links`, the HTTP layer's (`Invalid request body`
 * for a body that is not JSON) in `@shortlink/http`. The spec's texts are kept
 * to the letter.
 */

/** Limits the spec leaves open; documented in docs/integrators.md. */
export const LIMITS = {
  urlMaxLength: 2048,
  tagMaxLength: 100,
  /** Links in one bulk create. */
  bulkMaxLinks: 100,
  /** A bulk body: 100 links of the longest URL and tag, with room for escapes. */
  bulkBodyLimitBytes: 1024 * 1024,
  idempotencyKeyMaxLength: 255,
} as const;

/** The error a route throws for a rejection. */
export const rejectionError = ({ status, error, code, detail, field }: Rejection): HttpError =>
  new HttpError(status, error, code, { detail, ...(field === undefined ? {} : { field }) });

export const REJECTIONS = {
  invalidBody: HTTP_ERRORS.invalidBody,
  urlTooLong: {
    status: 400,
    error: `URLs must be at most ${LIMITS.urlMaxLength} characters`,
    code: 'url_too_long',
    detail: `url is over ${LIMITS.urlMaxLength} characters.`,
    field: 'url',
  },
  urlCredentials: {
    status: 400,
    error: 'Destination URLs must not contain a user name or password',
    code: 'url_credentials',
    detail: 'url holds a user name or password.',
    field: 'url',
  },
  urlSelf: {
    status: 400,
    error: 'Destination URLs must not point at this short-link service',
    code: 'url_self_reference',
    detail: 'url points at this short-link service.',
    field: 'url',
  },
  slugFormat: {
    status: 400,
    error: 'Custom slugs must be 3-30 characters long and use only lowercase letters, digits and hyphens',
    code: 'invalid_slug',
    detail: 'customSlug must be 3-30 characters of a-z, 0-9 and -.',
    field: 'customSlug',
  },
  slugReserved: {
    status: 400,
    error: 'This slug is reserved',
    code: 'slug_reserved',
    detail: 'customSlug is a word this service keeps for its own paths.',
    field: 'customSlug',
  },
  tag: {
    status: 400,
    error: `Tags must be 1-${LIMITS.tagMaxLength} characters without control characters`,
    code: 'invalid_tag',
    detail: `tag must be 1-${LIMITS.tagMaxLength} characters without control characters.`,
    field: 'tag',
  },
  /** A change names a field that cannot be changed (or is misspelt): refused, not ignored. */
  unknownField: {
    status: 400,
    error: 'Only url, tag, rules and variants can be changed',
    code: 'unknown_field',
    detail: 'The body names a field a change does not take.',
  },
  /** A create names a field it does not take (`slug` for `customSlug`): refused, not ignored, as a change is. */
  unknownCreateField: {
    status: 400,
    error: 'Only url, customSlug, tag, rules, variants and domain can be given',
    code: 'unknown_field',
    detail: 'The body names a field a create does not take.',
  },
  unknownBulkField: {
    status: 400,
    error: 'Only links can be given',
    code: 'unknown_field',
    detail: 'The body names a field beside links.',
  },
  emptyChange: {
    status: 400,
    error: 'Nothing to change: give url, tag or both',
    code: 'empty_change',
    detail: 'The body is {}.',
  },
} as const satisfies Record<string, Rejection>;

export function planRejection(plan: Plan): Rejection {
  return {
    status: 403,
    error: `Custom slugs shorter than ${PLANS[plan].minCustomSlugLength} characters require the Pro plan`,
    code: 'plan_upgrade_required',
    detail: `customSlug is shorter than ${PLANS[plan].minCustomSlugLength} characters.`,
    field: 'customSlug',
  };
}

export const SLUG_TAKEN = new HttpError(409, 'This slug is already taken', 'slug_taken', {
  detail: 'Another link has this customSlug: choose another, or leave it out for a generated one.',
  field: 'customSlug',
});

/** The 409 of a taken custom slug, naming it. */
export const slugTaken = (slug: string): HttpError =>
  SLUG_TAKEN.withDetail(
    `Another link has the slug ${excerpt(slug)}: choose another customSlug, or leave it out for a generated one.`,
    'customSlug',
  );

export const SLUG_SPACE_EXHAUSTED = new HttpError(
  503,
  'Could not allocate a short slug. Try again.',
  'slug_space_exhausted',
  { detail: 'Every generated slug tried was taken; a new try draws others.' },
);

/** A 503 whose text says what is known of the write, keeping what caused it for the log. */
function unavailable(text: string, detail: string, retryAfterSeconds: number, cause: unknown): HttpError {
  const error = new HttpError(
    503,
    text,
    'temporarily_unavailable',
    { detail },
    { 'Retry-After': String(retryAfterSeconds) },
  );
  error.cause = cause;
  return error;
}

/** The append's outcome is unknown: the claim settler decides within about a minute and a half. */
export function appendFailed(cause: unknown): HttpError {
  return unavailable(
    'The link could not be confirmed. Try again in a minute: if it was saved, its slug will then show as taken.',
    'The event log did not confirm the create in time.',
    60,
    cause,
  );
}

export const BULK_SIZE = new HttpError(
  400,
  `Bulk requests must hold 1-${LIMITS.bulkMaxLinks} links`,
  'invalid_bulk_size',
  { detail: `links must hold 1-${LIMITS.bulkMaxLinks} links.`, field: 'links' },
);

export const IDEMPOTENCY_KEY_INVALID = new HttpError(
  400,
  `Idempotency-Key must be 1-${LIMITS.idempotencyKeyMaxLength} printable ASCII characters`,
  'invalid_idempotency_key',
  { detail: `Idempotency-Key must be 1-${LIMITS.idempotencyKeyMaxLength} characters from ! to ~ or space.` },
);

export const IDEMPOTENCY_KEY_REUSED = new HttpError(
  422,
  'This Idempotency-Key was already used with a different request',
  'idempotency_key_reused',
  {
    detail:
      'This key was first sent, within the last 24 hours, with another method, path or body: use a new key for a new request.',
  },
);

export const IDEMPOTENCY_KEY_IN_PROGRESS = new HttpError(
  409,
  'A request with this Idempotency-Key is still in progress. Try again in a moment.',
  'idempotency_key_in_progress',
  { detail: 'The first request with this key is still being answered; its answer is replayed once it has one.' },
  { 'Retry-After': '1' },
);

/**
 * Postgres took the change's COMMIT and did not answer (it stalled, or the
 * connection was lost): the change may be saved or not. Either way the same
 * change sent again is harmless, and its answer says which: the change
 * (again), or 404 for a delete that had been saved.
 */
export function changeUnconfirmed(cause: unknown): HttpError {
  return unavailable(
    'The database did not confirm the change in time: it may or may not have been saved. Sending the same change again is safe.',
    'Postgres took the change but did not answer its commit in time.',
    5,
    cause,
  );
}

/**
 * A change is committed in Postgres (redirects already show it) but the event
 * log did not confirm its event in time. It stays in the outbox and is
 * appended again until the log takes it, so nothing is undone.
 */
export function changeNotConfirmed(cause: unknown): HttpError {
  return unavailable(
    'The change was saved but the event log did not confirm it yet; it will be delivered once the log is reachable. Sending the same change again is safe.',
    'The change is saved and waits in the outbox until the event log takes its event.',
    60,
    cause,
  );
}

import { PLANS, type Plan } from '@shortlink/accounts';
import { HttpError } from '@shortlink/http';

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

export interface Rejection {
  status: 400 | 403;
  error: string;
  code: string;
  /** What is wrong in this request, in one sentence (see `ErrorDetail` in @shortlink/http). */
  detail?: string;
  field?: string;
}

/** A rejection saying what is wrong in this request. */
export const explain = (rejection: Rejection, detail: string, field?: string): Rejection => ({
  ...rejection,
  detail,
  ...(field === undefined ? {} : { field }),
});

/** The error a route throws for a rejection. */
export const rejectionError = ({ status, error, code, detail, field }: Rejection): HttpError =>
  new HttpError(
    status,
    error,
    code,
    {},
    { ...(detail === undefined ? {} : { detail }), ...(field === undefined ? {} : { field }) },
  );

export const REJECTIONS = {
  invalidBody: { status: 400, error: 'Invalid request body', code: 'invalid_body' },
  urlTooLong: {
    status: 400,
    error: `URLs must be at most ${LIMITS.urlMaxLength} characters`,
    code: 'url_too_long',
  },
  urlCredentials: {
    status: 400,
    error: 'Destination URLs must not contain a user name or password',
    code: 'url_credentials',
  },
  urlSelf: {
    status: 400,
    error: 'Destination URLs must not point at this short-link service',
    code: 'url_self_reference',
  },
  slugFormat: {
    status: 400,
    error: 'Custom slugs must be 3-30 characters long and use only lowercase letters, digits and hyphens',
    code: 'invalid_slug',
  },
  slugReserved: { status: 400, error: 'This slug is reserved', code: 'slug_reserved' },
  tag: {
    status: 400,
    error: `Tags must be 1-${LIMITS.tagMaxLength} characters without control characters`,
    code: 'invalid_tag',
  },
  /** A change names a field that cannot be changed (or is misspelt): refused, not ignored. */
  unknownField: { status: 400, error: 'Only url and tag can be changed', code: 'unknown_field' },
  /** A create names a field it does not take (`slug` for `customSlug`): refused, not ignored, as a change is. */
  unknownCreateField: { status: 400, error: 'Only url, customSlug and tag can be given', code: 'unknown_field' },
  unknownBulkField: { status: 400, error: 'Only links can be given', code: 'unknown_field' },
  emptyChange: { status: 400, error: 'Nothing to change: give url, tag or both', code: 'empty_change' },
} as const satisfies Record<string, Rejection>;

export function planRejection(plan: Plan): Rejection {
  return {
    status: 403,
    error: `Custom slugs shorter than ${PLANS[plan].minCustomSlugLength} characters require the Pro plan`,
    code: 'plan_upgrade_required',
  };
}

export const SLUG_TAKEN = new HttpError(409, 'This slug is already taken', 'slug_taken');

export const SLUG_SPACE_EXHAUSTED = new HttpError(
  503,
  'Could not allocate a short slug. Try again.',
  'slug_space_exhausted',
);

/** A 503 whose text says what is known of the write, keeping what caused it for the log. */
function unavailable(text: string, retryAfterSeconds: number, cause: unknown): HttpError {
  const error = new HttpError(503, text, 'temporarily_unavailable', { 'Retry-After': String(retryAfterSeconds) });
  error.cause = cause;
  return error;
}

/** The append's outcome is unknown: the claim settler decides within about a minute and a half. */
export function appendFailed(cause: unknown): HttpError {
  return unavailable(
    'The link could not be confirmed. Try again in a minute: if it was saved, its slug will then show as taken.',
    60,
    cause,
  );
}

export const BULK_SIZE = new HttpError(
  400,
  `Bulk requests must hold 1-${LIMITS.bulkMaxLinks} links`,
  'invalid_bulk_size',
);

export const IDEMPOTENCY_KEY_INVALID = new HttpError(
  400,
  `Idempotency-Key must be 1-${LIMITS.idempotencyKeyMaxLength} printable ASCII characters`,
  'invalid_idempotency_key',
);

export const IDEMPOTENCY_KEY_REUSED = new HttpError(
  422,
  'This Idempotency-Key was already used with a different request',
  'idempotency_key_reused',
);

export const IDEMPOTENCY_KEY_IN_PROGRESS = new HttpError(
  409,
  'A request with this Idempotency-Key is still in progress. Try again in a moment.',
  'idempotency_key_in_progress',
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
    60,
    cause,
  );
}

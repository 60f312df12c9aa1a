import { PLANS, type Plan } from '@shortlink/accounts';
import { HttpError } from '@shortlink/http';

/**
 * Every error text the write API answers with, in one place (the HTTP layer's
 * own, such as `Invalid request body` for a body that is not JSON, are in
 * `@shortlink/http`). The spec's texts are kept to the letter.
 */

/** Limits the spec leaves open; documented in the README's API section. */
export const LIMITS = {
  urlMaxLength: 2048,
  tagMaxLength: 100,
} as const;

export interface Rejection {
  status: 400 | 403;
  error: string;
  code: string;
}

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

/** The append's outcome is unknown: the claim settler decides within about a minute and a half. */
export function appendFailed(cause: unknown): HttpError {
  const error = new HttpError(
    503,
    'The link could not be confirmed. Try again in a minute: if it was saved, its slug will then show as taken.',
    'temporarily_unavailable',
    { 'Retry-After': '60' },
  );
  error.cause = cause;
  return error;
}

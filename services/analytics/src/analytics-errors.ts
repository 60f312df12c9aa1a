import { HttpError } from '@shortlink/http';

/**
 * The read API's own error texts. Those of the Link resource are in
 * `@shortlink/links`; the HTTP layer's (`Unauthorized`) in `@shortlink/http`
 * and `@shortlink/accounts`.
 */

/** Limits of the list's filters; documented in docs/integrators.md. */
export const LIST_LIMITS = {
  defaultLimit: 20,
  maxLimit: 100,
  /** As long as a tag can be (the write API's limit): a longer filter could match nothing. */
  tagMaxLength: 100,
  searchMaxLength: 200,
} as const;

export const INVALID_RANGE = new HttpError(400, 'Invalid range', 'invalid_range', {
  detail: 'range must be one of 7d, 30d, 90d, all.',
  field: 'range',
});

export const INVALID_LIMIT = new HttpError(
  400,
  `limit must be a whole number from 1 to ${LIST_LIMITS.maxLimit}`,
  'invalid_limit',
  { detail: `limit must be from 1 to ${LIST_LIMITS.maxLimit}.`, field: 'limit' },
);

/** Garbled, forged, of another account or of another installation: all alike. */
export const INVALID_CURSOR = new HttpError(
  400,
  'Invalid cursor: pass nextCursor from a previous page as it is',
  'invalid_cursor',
  { detail: 'cursor is not a nextCursor of this list.', field: 'cursor' },
);

export const INVALID_TAG_FILTER = new HttpError(
  400,
  `tag must be 1-${LIST_LIMITS.tagMaxLength} characters without control characters`,
  'invalid_tag',
  { detail: `tag must be 1-${LIST_LIMITS.tagMaxLength} characters.`, field: 'tag' },
);

export const INVALID_SEARCH = new HttpError(
  400,
  `search must be 1-${LIST_LIMITS.searchMaxLength} characters without control characters`,
  'invalid_search',
  { detail: `search must be 1-${LIST_LIMITS.searchMaxLength} characters.`, field: 'search' },
);

/** A range the account's plan does not include (the free plan: 7d and 30d). */
export function rangeNeedsPro(range: string): HttpError {
  return new HttpError(403, `The ${range} range requires the Pro plan`, 'plan_upgrade_required', {
    detail: 'The free plan reads 7d and 30d.',
    field: 'range',
  });
}

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

/** The account-wide analytics' groupings and row limits; documented in docs/account-analytics.md. */
export const GROUP_BYS = ['link', 'tag', 'country', 'referrer', 'device', 'browser', 'domain', 'day'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export const ACCOUNT_LIMITS = { defaultGroupBy: 'link', defaultLimit: 10, maxLimit: LIST_LIMITS.maxLimit } as const;

export const INVALID_GROUP_BY = new HttpError(
  400,
  `groupBy must be one of ${GROUP_BYS.join(', ')}`,
  'invalid_group_by',
  { detail: `groupBy must be one of ${GROUP_BYS.join(', ')}.`, field: 'groupBy' },
);

/** A range the account's plan does not include (the free plan: 7d and 30d). */
export function rangeNeedsPro(range: string): HttpError {
  return new HttpError(403, `The ${range} range requires the Pro plan`, 'plan_upgrade_required', {
    detail: 'The free plan reads 7d and 30d.',
    field: 'range',
  });
}

/** The QR code's image options; documented in docs/integrators.md. */
export const QR_LIMITS = {
  defaultSize: 300,
  minSize: 64,
  maxSize: 2048,
  /** In modules: the QR standard's quiet zone is 4. */
  defaultMargin: 4,
  maxMargin: 16,
} as const;

export const INVALID_QR_FORMAT = new HttpError(400, 'format must be svg or png', 'invalid_qr_format', {
  detail: 'format must be svg or png.',
  field: 'format',
});

export const INVALID_QR_SIZE = new HttpError(
  400,
  `size must be a whole number of pixels from ${QR_LIMITS.minSize} to ${QR_LIMITS.maxSize}`,
  'invalid_qr_size',
  { detail: `size must be from ${QR_LIMITS.minSize} to ${QR_LIMITS.maxSize}.`, field: 'size' },
);

export const INVALID_QR_MARGIN = new HttpError(
  400,
  `margin must be a whole number of modules from 0 to ${QR_LIMITS.maxMargin}`,
  'invalid_qr_margin',
  { detail: `margin must be from 0 to ${QR_LIMITS.maxMargin}.`, field: 'margin' },
);

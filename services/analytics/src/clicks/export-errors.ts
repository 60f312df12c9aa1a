import { PLANS, type Plan } from '@shortlink/accounts';
import { HttpError } from '@shortlink/http';

/**
 * The click export's limits and error texts (documented in docs/data-export.md and the API document). The range a
 * plan exports is the longest range its analytics read: the free plan's 30 days, the Pro plan's every click.
 */
export const EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const longestDays = (plan: Plan): number | null => {
  const ranges = PLANS[plan].analyticsRanges as readonly string[];
  if (ranges.includes('all')) return null;
  return Math.max(...ranges.map((r) => Number.parseInt(r, 10)));
};

export const EXPORT_LIMITS = {
  /** Days back from today (UTC) a plan exports, today included; null: every click. */
  daysBack: { free: longestDays('free'), pro: longestDays('pro') } as Record<Plan, number | null>,
  /** Exports (a resumed one included) per key per window. */
  perWindow: { free: 20, pro: 120 } as Record<Plan, number>,
  windowSeconds: 3600,
  maxLimit: 100_000_000,
} as const;

export const INVALID_EXPORT_FORMAT = new HttpError(
  400,
  'format must be ndjson, csv or parquet',
  'invalid_export_format',
  {
    detail: 'format must be ndjson, csv or parquet.',
    field: 'format',
  },
);

/** `from` or `to`: not RFC 3339, out of the years a click can have, or `from` not before `to`. */
export function invalidTime(field: 'from' | 'to', detail: string): HttpError {
  return new HttpError(400, `${field} must be an RFC 3339 time, from before to`, 'invalid_time', { detail, field });
}

export const INVALID_EXPORT_CURSOR = new HttpError(
  400,
  'Invalid cursor: pass the cursor column of the last row you kept, as it is',
  'invalid_export_cursor',
  { detail: 'after is not a cursor of a click export.', field: 'after' },
);

export const INVALID_EXPORT_LIMIT = new HttpError(
  400,
  `limit must be a whole number from 1 to ${EXPORT_LIMITS.maxLimit}`,
  'invalid_limit',
  { detail: `limit must be from 1 to ${EXPORT_LIMITS.maxLimit}.`, field: 'limit' },
);

export const INVALID_SLUG_FILTER = new HttpError(400, 'slug must be a slug: 3-30 of a-z, 0-9 and -', 'invalid_slug', {
  detail: 'slug must be 3-30 characters of a-z, 0-9 and -.',
  field: 'slug',
});

/** `from` earlier than the plan exports. */
export function exportRangeNeedsPro(days: number): HttpError {
  return new HttpError(403, 'Exports older than the plan’s range require the Pro plan', 'plan_upgrade_required', {
    detail: `The free plan exports the last ${days} days (today and the ${days - 1} before, UTC).`,
    field: 'from',
  });
}

export function exportRateLimited(plan: Plan, retryAfterSeconds: number): HttpError {
  const limit = EXPORT_LIMITS.perWindow[plan];
  return new HttpError(
    429,
    'Too many exports: this API key is over its export limit. Try again after Retry-After seconds.',
    'rate_limit_exceeded',
    {
      detail: `This API key's ${plan} plan allows ${limit} exports an hour; the next is taken in ${retryAfterSeconds} s.`,
    },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

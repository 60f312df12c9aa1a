import type { Plan } from '@shortlink/accounts';
import { isStorableText } from '@shortlink/events';
import { excerpt, type HttpError } from '@shortlink/http';
import { INVALID_TAG_FILTER, LIST_LIMITS } from '../analytics-errors';
import { utcDay } from '../analytics/range';
import { decodeCursor, type ExportCursor } from './export-cursor';
import {
  EXPORT_FORMATS,
  EXPORT_LIMITS,
  exportRangeNeedsPro,
  INVALID_EXPORT_CURSOR,
  INVALID_EXPORT_FORMAT,
  INVALID_EXPORT_LIMIT,
  INVALID_SLUG_FILTER,
  invalidTime,
  type ExportFormat,
} from './export-errors';

export interface ExportRequest {
  format: ExportFormat;
  /** Clicks at or after `from` and before `to`. */
  from: Date;
  to: Date;
  slug?: string;
  tag?: string;
  after?: ExportCursor;
  limit?: number;
}

export type ExportRequestResult = { ok: true; request: ExportRequest } | { ok: false; error: HttpError };

const DAY_MS = 24 * 60 * 60 * 1000;
/** RFC 3339 `date-time`: a zone is required, `T` and `Z` in either case, up to nanoseconds (kept to milliseconds). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
/** The years a click can have, as ClickHouse's DateTime64 holds them. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);
const SLUG = /^[a-z0-9-]{3,30}$/;
const WHOLE_NUMBER = /^[1-9][0-9]{0,8}$/;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const received = (value: unknown): string =>
  typeof value === 'string' ? `was ${excerpt(value)}` : 'was given more than once';

/** Milliseconds since the epoch of an RFC 3339 time, or null; a date that does not exist (02-30, 24:00) is null. */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(local);
  if (
    back.getUTCFullYear() !== Number(y) ||
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    back.getUTCHours() !== Number(h) ||
    back.getUTCMinutes() !== Number(mi) ||
    back.getUTCSeconds() !== Number(s)
  ) {
    return null;
  }
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const [oh, om] = zone.slice(1).split(':').map(Number);
    if (oh === undefined || om === undefined || oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const millis = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  return local + millis - offsetMinutes * 60_000;
}

/** The earliest instant a plan exports: the start of the first UTC day of its longest range, or null for every click. */
export function earliestExported(plan: Plan, now: Date): Date | null {
  const days = EXPORT_LIMITS.daysBack[plan];
  if (days === null) return null;
  return new Date(Date.parse(`${utcDay(now)}T00:00:00.000Z`) - (days - 1) * DAY_MS);
}

/**
 * The export's query string, checked whole: each parameter at most once, the one at fault named. `from` defaults to
 * the earliest the plan exports, `to` to now; parameters it does not know are ignored.
 */
export function parseExportRequest(query: Record<string, unknown>, plan: Plan, now: Date): ExportRequestResult {
  const fail = (error: HttpError): ExportRequestResult => ({ ok: false, error });
  const { format = 'ndjson', from, to, slug, tag, after, limit } = query;

  if (typeof format !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    return fail(
      INVALID_EXPORT_FORMAT.withDetail(`format must be ndjson, csv or parquet; it ${received(format)}.`, 'format'),
    );
  }
  const time = (field: 'from' | 'to', value: unknown): number | HttpError => {
    if (typeof value !== 'string') return invalidTime(field, `${field} ${received(value)}.`);
    const ms = parseRfc3339(value);
    if (ms === null) {
      return invalidTime(
        field,
        `${field} must be an RFC 3339 time such as 2026-11-01T00:00:00Z; it ${received(value)}.`,
      );
    }
    if (ms < EARLIEST || ms >= LATEST) return invalidTime(field, `${field} must be from 1970 to 2199.`);
    return ms;
  };
  const earliest = earliestExported(plan, now);
  let fromMs = earliest?.getTime() ?? EARLIEST;
  if (from !== undefined) {
    const t = time('from', from);
    if (typeof t !== 'number') return fail(t);
    fromMs = t;
  }
  let toMs = now.getTime();
  if (to !== undefined) {
    const t = time('to', to);
    if (typeof t !== 'number') return fail(t);
    toMs = t;
  }
  if (fromMs >= toMs) {
    return fail(invalidTime('to', `to must be later than from (${new Date(fromMs).toISOString()}).`));
  }
  if (earliest !== null && fromMs < earliest.getTime()) {
    const days = EXPORT_LIMITS.daysBack[plan] ?? 0;
    return fail(
      exportRangeNeedsPro(days).withDetail(
        `This plan (${plan}) exports clicks from ${earliest.toISOString()} on (the last ${days} days, UTC).`,
        'from',
      ),
    );
  }
  const request: ExportRequest = { format: format as ExportFormat, from: new Date(fromMs), to: new Date(toMs) };

  if (slug !== undefined) {
    if (typeof slug !== 'string' || !SLUG.test(slug)) {
      return fail(
        INVALID_SLUG_FILTER.withDetail(`slug must be 3-30 characters of a-z, 0-9 and -; it ${received(slug)}.`, 'slug'),
      );
    }
    request.slug = slug;
  }
  if (tag !== undefined) {
    const max = LIST_LIMITS.tagMaxLength;
    if (typeof tag !== 'string' || tag === '' || CONTROL.test(tag) || !isStorableText(tag) || [...tag].length > max) {
      return fail(INVALID_TAG_FILTER.withDetail(`tag must be 1-${max} characters; it ${received(tag)}.`, 'tag'));
    }
    request.tag = tag;
  }
  if (after !== undefined) {
    const cursor = typeof after === 'string' ? decodeCursor(after) : null;
    if (cursor === null) {
      return fail(
        INVALID_EXPORT_CURSOR.withDetail(
          `after must be the cursor column of an exported row (link_id.milliseconds.event_id); it ${received(after)}.`,
          'after',
        ),
      );
    }
    request.after = cursor;
  }
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) > EXPORT_LIMITS.maxLimit) {
      return fail(
        INVALID_EXPORT_LIMIT.withDetail(
          `limit must be from 1 to ${EXPORT_LIMITS.maxLimit}; it ${received(limit)}.`,
          'limit',
        ),
      );
    }
    request.limit = Number(limit);
  }
  return { ok: true, request };
}

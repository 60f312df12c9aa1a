import { isStorableText } from '@shortlink/events';
import { excerpt, type HttpError } from '@shortlink/http';
import { INVALID_CURSOR, INVALID_LIMIT, INVALID_SEARCH, INVALID_TAG_FILTER, LIST_LIMITS } from '../analytics-errors';
import { decodeCursor } from './list-cursor';

export interface ListRequest {
  limit: number;
  /** The link id the cursor names: the page starts after it. */
  after?: string;
  tag?: string;
  search?: string;
}

export type ListRequestResult = { ok: true; request: ListRequest } | { ok: false; error: HttpError };

const WHOLE_NUMBER = /^[1-9][0-9]{0,2}$/;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Characters (Unicode code points, an emoji one), as the write API measures a
 * tag and JSON Schema's `maxLength` measures a string: a filter as long as the
 * longest tag stored is taken. Only text of whole characters gets here.
 */
function characters(value: string, atMost: number): number {
  if (value.length <= atMost) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** A query parameter as a detail shows it: given twice, or what it held. */
const received = (value: unknown): string =>
  typeof value === 'string' ? `was ${excerpt(value)}` : 'was given more than once';

const filterText = (value: string, max: number): boolean =>
  value.length >= 1 && !CONTROL.test(value) && isStorableText(value) && characters(value, max) <= max;

/**
 * The list's query string, checked whole: each parameter given at most once
 * (a repeated one arrives as an array and is refused), parameters it does not
 * know are ignored.
 */
export function parseListRequest(query: Record<string, unknown>): ListRequestResult {
  const fail = (error: HttpError): ListRequestResult => ({ ok: false, error });
  const request: ListRequest = { limit: LIST_LIMITS.defaultLimit };
  const { limit, cursor, tag, search } = query;
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) > LIST_LIMITS.maxLimit) {
      return fail(INVALID_LIMIT.withDetail(`limit ${received(limit)}.`, 'limit'));
    }
    request.limit = Number(limit);
  }
  if (cursor !== undefined) {
    const after = typeof cursor === 'string' ? decodeCursor(cursor) : null;
    if (after === null) return fail(INVALID_CURSOR.withDetail('cursor is not a nextCursor of this list.', 'cursor'));
    request.after = after;
  }
  if (tag !== undefined) {
    if (typeof tag !== 'string' || !filterText(tag, LIST_LIMITS.tagMaxLength))
      return fail(INVALID_TAG_FILTER.withDetail(`tag ${received(tag)}.`, 'tag'));
    request.tag = tag;
  }
  if (search !== undefined) {
    if (typeof search !== 'string' || !filterText(search, LIST_LIMITS.searchMaxLength))
      return fail(INVALID_SEARCH.withDetail(`search ${received(search)}.`, 'search'));
    request.search = search;
  }
  return { ok: true, request };
}

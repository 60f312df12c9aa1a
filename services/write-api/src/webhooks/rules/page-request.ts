import { kindOf, excerpt, type HttpError } from '@shortlink/http';
import { WEBHOOK_ERRORS, WEBHOOK_LIMITS } from '@shortlink/webhooks';

/** A page of a list: how many, and the opaque cursor's bytes (checked by the list's own decoder). */
export interface PageRequest<C> {
  limit: number;
  after?: C;
}

const WHOLE_NUMBER = /^[1-9][0-9]{0,2}$/;

/** `limit` and `cursor` of a query string, each given at most once; other parameters are ignored. */
export function parsePageRequest<C>(
  query: Record<string, unknown>,
  decode: (cursor: string) => C | null,
): { ok: true; page: PageRequest<C> } | { ok: false; error: HttpError } {
  const page: PageRequest<C> = { limit: WEBHOOK_LIMITS.defaultPageSize };
  const { limit, cursor } = query;
  const received = (v: unknown) =>
    typeof v === 'string' ? `was ${excerpt(v)}` : `was ${kindOf(v)} (given more than once?)`;
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) > WEBHOOK_LIMITS.maxPageSize) {
      return { ok: false, error: WEBHOOK_ERRORS.invalidLimit.withDetail(`limit ${received(limit)}.`, 'limit') };
    }
    page.limit = Number(limit);
  }
  if (cursor !== undefined) {
    const after = typeof cursor === 'string' ? decode(cursor) : null;
    if (after === null) {
      return {
        ok: false,
        error: WEBHOOK_ERRORS.invalidCursor.withDetail('cursor is not a nextCursor of this list.', 'cursor'),
      };
    }
    page.after = after;
  }
  return { ok: true, page };
}

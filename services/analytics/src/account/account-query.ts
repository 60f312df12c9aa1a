import { excerpt, type HttpError } from '@shortlink/http';
import { ACCOUNT_LIMITS, GROUP_BYS, INVALID_GROUP_BY, INVALID_LIMIT, type GroupBy } from '../analytics-errors';

export interface AccountQuery {
  groupBy: GroupBy;
  limit: number;
}

export type AccountQueryResult = { ok: true; query: AccountQuery } | { ok: false; error: HttpError };

const WHOLE_NUMBER = /^[1-9][0-9]{0,2}$/;

const isGroupBy = (value: string): value is GroupBy => (GROUP_BYS as readonly string[]).includes(value);

/** A parameter as a detail shows it: given twice, or what it held. */
const received = (value: unknown): string =>
  typeof value === 'string' ? `was ${excerpt(value)}` : 'was given more than once';

/**
 * `groupBy` and `limit` of the account's analytics (`range` is checked as a
 * link's is, by checkedRange): each at most once, `limit` with the list's
 * rule and text.
 */
export function parseAccountQuery(query: Record<string, unknown>): AccountQueryResult {
  const { groupBy = ACCOUNT_LIMITS.defaultGroupBy, limit } = query;
  if (typeof groupBy !== 'string' || !isGroupBy(groupBy)) {
    return {
      ok: false,
      error: INVALID_GROUP_BY.withDetail(
        `groupBy must be one of ${GROUP_BYS.join(', ')}; it ${received(groupBy)}.`,
        'groupBy',
      ),
    };
  }
  if (
    limit !== undefined &&
    (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) > ACCOUNT_LIMITS.maxLimit)
  ) {
    return { ok: false, error: INVALID_LIMIT.withDetail(`limit ${received(limit)}.`, 'limit') };
  }
  return { ok: true, query: { groupBy, limit: limit === undefined ? ACCOUNT_LIMITS.defaultLimit : Number(limit) } };
}

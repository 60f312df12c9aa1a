import { PLANS, type Plan } from '@shortlink/accounts';
import { kindOf } from '@shortlink/http';
import { INVALID_RANGE, rangeNeedsPro } from '../analytics-errors';
import { isRange, RANGES, type Range } from './range';

/**
 * The `range` query parameter of every analytics answer (a link's and the
 * account's), checked against the ranges and the plan: `7d` when absent, a
 * 400 naming what was sent, a 403 for a range the plan does not read.
 */
export function checkedRange(value: unknown, plan: Plan): Range {
  const range = value ?? '7d';
  if (typeof range !== 'string' || !isRange(range)) {
    const received = Array.isArray(range) ? 'range given more than once' : `received ${kindOf(range)}`;
    throw INVALID_RANGE.withDetail(`range must be one of ${RANGES.join(', ')}; ${received}.`, 'range');
  }
  const allowed = PLANS[plan].analyticsRanges as readonly string[];
  if (!allowed.includes(range)) {
    throw rangeNeedsPro(range).withDetail(`This plan (${plan}) reads ${allowed.join(' and ')}.`, 'range');
  }
  return range;
}

/**
 * What each plan may do (spec section 8). The spec shows Pro's limits; the free
 * plan follows Dub's: custom slugs of at least 4 characters, and the 7- and
 * 30-day analytics ranges.
 */
export const PLANS = {
  free: { minCustomSlugLength: 4, analyticsRanges: ['7d', '30d'] },
  pro: { minCustomSlugLength: 3, analyticsRanges: ['7d', '30d', '90d', 'all'] },
} as const satisfies Record<string, { minCustomSlugLength: number; analyticsRanges: readonly string[] }>;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

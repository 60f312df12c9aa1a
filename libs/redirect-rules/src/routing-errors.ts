import { explain, type Rejection } from '@shortlink/http';
import { ROUTING_LIMITS } from '@shortlink/events';

export { explain, type Rejection };

/**
 * The texts of a refused `rules` or `variants` (docs/errors.md's style: `error` fixed for people, `code` for
 * programs, `detail` one sentence naming the part of the body, `field` its path such as `rules[2].when.country[0]`).
 * Each is the shared `Rejection` of `@shortlink/http`, so the write API answers them as it answers its own.
 */
export const RULES_REJECTION = {
  status: 400,
  error: `Rules must be a list of at most ${ROUTING_LIMITS.maxRules} { when, destinationUrl }, each when holding device, os, country, language or query`,
  code: 'invalid_rules',
  detail: 'rules is not a list of rules this service takes.',
  field: 'rules',
} as const satisfies Rejection;

export const VARIANTS_REJECTION = {
  status: 400,
  error: `Variants must be ${ROUTING_LIMITS.minVariants}-${ROUTING_LIMITS.maxVariants} different destinations with whole-number weights summing to 100`,
  code: 'invalid_variants',
  detail: 'variants is not a list of weighted destinations this service takes.',
  field: 'variants',
} as const satisfies Rejection;

/**
 * The link's destination rule, answered for a destination inside `rules` or `variants`: its code and text are the
 * link's own (`url_too_long`, `url_credentials` …), its detail and field name where it sits. The rule's details
 * open with the field they are about (`url has no scheme …`); that word becomes the path.
 */
export function relabel(rejection: Rejection, field: string): Rejection {
  return { ...rejection, detail: rejection.detail.replace(/^url\b/, field), field };
}

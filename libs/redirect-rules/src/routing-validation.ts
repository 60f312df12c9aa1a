import { excerpt, kindOf } from '@shortlink/http';
import { explain, type Rejection, relabel, RULES_REJECTION, VARIANTS_REJECTION } from './routing-errors';
import {
  CONDITION_KINDS,
  COUNTRY_CODE,
  DEVICES,
  LANGUAGE_SUBTAG,
  type LinkRouting,
  type LinkRule,
  NO_CONTROL,
  OPERATING_SYSTEMS,
  ROUTING_LIMITS,
  isStorableJson,
  type Variant,
} from '@shortlink/events';

/**
 * The link's destination rule (the write API's `destinationUrlRejection`, bound to this service's addresses): what is
 * wrong with a URL, or null. Passed in so a rule's or variant's destination is held to exactly what `url` is.
 */
export type DestinationCheck = (url: unknown) => Rejection | null;

export type RoutingOutcome = { ok: true; routing: LinkRouting } | { ok: false; rejection: Rejection };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const list = (names: readonly string[]) => `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;

/** The first key of `record` not among `known`, shortened and escaped as any echo is. */
function unknownKey(record: Record<string, unknown>, known: readonly string[]): string | undefined {
  return Object.keys(record).find((key) => !known.includes(key));
}

/**
 * Validates a body's `rules` and `variants` (absent: none; `variants: null`: none), rules first and each part in
 * reading order, so a body gets one precise answer. Sizes are checked before contents: a list of a million rules
 * is refused for its length, without a look at its items. Pure: no I/O, no clock.
 */
export function validateRouting(
  body: { rules?: unknown; variants?: unknown },
  destinationProblem: DestinationCheck,
): RoutingOutcome {
  const reject = (rejection: Rejection) => ({ ok: false as const, rejection });
  const rules = body.rules ?? [];
  const rulesProblem = rulesRejection(rules, destinationProblem);
  if (rulesProblem !== null) return reject(rulesProblem);
  const variants = body.variants ?? null;
  const variantsProblem = variants === null ? null : variantsRejection(variants, destinationProblem);
  if (variantsProblem !== null) return reject(variantsProblem);
  return { ok: true, routing: { rules: rules as LinkRule[], variants: variants as Variant[] | null } };
}

function rulesRejection(rules: unknown, destinationProblem: DestinationCheck): Rejection | null {
  const problem = (detail: string, field = 'rules') => explain(RULES_REJECTION, detail, field);
  if (!Array.isArray(rules)) return problem(`rules must be a list of rules; received ${kindOf(rules)}.`);
  if (rules.length > ROUTING_LIMITS.maxRules) {
    return problem(`rules holds ${rules.length} rules; at most ${ROUTING_LIMITS.maxRules}.`);
  }
  if (!isStorableJson(rules)) return problem('rules holds U+0000 or a lone surrogate, which no text may hold.');
  for (const [i, rule] of rules.entries()) {
    const at = `rules[${i}]`;
    if (!isRecord(rule)) {
      return problem(`${at} must be an object { when, destinationUrl }; received ${kindOf(rule)}.`, at);
    }
    const unknown = unknownKey(rule, ['when', 'destinationUrl']);
    if (unknown !== undefined) {
      return problem(
        `${at} holds the unknown field ${excerpt(unknown)}: a rule holds when and destinationUrl.`,
        `${at}.${excerpt(unknown).slice(1, -1)}`,
      );
    }
    const when = whenProblem(rule.when, `${at}.when`);
    if (when !== null) return problem(when.detail, when.field);
    if (rule.destinationUrl === undefined) {
      return problem(`${at}.destinationUrl is missing: a rule names where it sends.`, `${at}.destinationUrl`);
    }
    const destination = destinationProblem(rule.destinationUrl);
    if (destination !== null) return relabel(destination, `${at}.destinationUrl`);
  }
  return null;
}

function whenProblem(when: unknown, at: string): { detail: string; field: string } | null {
  const problem = (detail: string, field = at) => ({ detail, field });
  if (!isRecord(when)) {
    return problem(`${at} must be an object of conditions (${list(CONDITION_KINDS)}); received ${kindOf(when)}.`);
  }
  const unknown = unknownKey(when, CONDITION_KINDS);
  if (unknown !== undefined) {
    return problem(
      `${at} holds the unknown condition ${excerpt(unknown)}; the conditions are ${list(CONDITION_KINDS)}.`,
      `${at}.${excerpt(unknown).slice(1, -1)}`,
    );
  }
  const kinds = Object.keys(when);
  if (kinds.length === 0) return problem(`${at} is empty: give at least one of ${list(CONDITION_KINDS)}.`);
  const { device, os, country, language, query } = when;
  return (
    valuesProblem(
      device,
      `${at}.device`,
      (v) => (DEVICES as readonly unknown[]).includes(v),
      `one of ${list(DEVICES)}`,
    ) ??
    valuesProblem(
      os,
      `${at}.os`,
      (v) => (OPERATING_SYSTEMS as readonly unknown[]).includes(v),
      `one of ${list(OPERATING_SYSTEMS)}`,
    ) ??
    valuesProblem(
      country,
      `${at}.country`,
      (v) => typeof v === 'string' && COUNTRY_CODE.test(v),
      'a country code of two capital letters (ISO 3166-1 alpha-2, such as DE)',
    ) ??
    valuesProblem(
      language,
      `${at}.language`,
      (v) => typeof v === 'string' && LANGUAGE_SUBTAG.test(v),
      'a primary language subtag of 2-3 lower-case letters (such as en)',
    ) ??
    queryProblem(query, `${at}.query`)
  );
}

/** A condition's list of values: absent is fine, otherwise 1 to maxValues values each passing `fits`. */
function valuesProblem(
  values: unknown,
  at: string,
  fits: (value: unknown) => boolean,
  expected: string,
): { detail: string; field: string } | null {
  if (values === undefined) return null;
  const problem = (detail: string, field = at) => ({ detail, field });
  if (!Array.isArray(values)) return problem(`${at} must be a list of values; received ${kindOf(values)}.`);
  if (values.length === 0 || values.length > ROUTING_LIMITS.maxValues) {
    return problem(`${at} holds ${values.length} values; expected 1-${ROUTING_LIMITS.maxValues}.`);
  }
  const bad = values.findIndex((v) => !fits(v));
  if (bad >= 0) return problem(`${at}[${bad}] must be ${expected}; received ${kindOf(values[bad])}.`, `${at}[${bad}]`);
  return null;
}

function queryProblem(query: unknown, at: string): { detail: string; field: string } | null {
  if (query === undefined) return null;
  const problem = (detail: string, field = at) => ({ detail, field });
  if (!isRecord(query)) return problem(`${at} must be an object { name, values }; received ${kindOf(query)}.`);
  const unknown = unknownKey(query, ['name', 'values']);
  if (unknown !== undefined) {
    return problem(
      `${at} holds the unknown field ${excerpt(unknown)}: a query condition holds name and values.`,
      `${at}.${excerpt(unknown).slice(1, -1)}`,
    );
  }
  const { name, values } = query;
  const max = ROUTING_LIMITS.queryNameMaxLength;
  if (typeof name !== 'string' || name.length === 0 || name.length > max || !NO_CONTROL.test(name)) {
    return problem(
      `${at}.name must be 1-${max} characters without control characters; received ${typeof name === 'string' && name.length > max ? `${name.length} characters` : kindOf(name)}.`,
      `${at}.name`,
    );
  }
  if (values === undefined) return problem(`${at}.values is missing: list the values that match.`, `${at}.values`);
  const valueMax = ROUTING_LIMITS.queryValueMaxLength;
  return valuesProblem(
    values,
    `${at}.values`,
    (v) => typeof v === 'string' && v.length <= valueMax && NO_CONTROL.test(v),
    `text of at most ${valueMax} characters without control characters`,
  );
}

function variantsRejection(variants: unknown, destinationProblem: DestinationCheck): Rejection | null {
  const problem = (detail: string, field = 'variants') => explain(VARIANTS_REJECTION, detail, field);
  const { minVariants: min, maxVariants: max } = ROUTING_LIMITS;
  if (!Array.isArray(variants)) {
    return problem(
      `variants must be a list of ${min}-${max} { destinationUrl, weight }, or null; received ${kindOf(variants)}.`,
    );
  }
  if (variants.length < min || variants.length > max) {
    return problem(`variants holds ${variants.length} destinations; expected ${min}-${max}.`);
  }
  if (!isStorableJson(variants)) return problem('variants holds U+0000 or a lone surrogate, which no text may hold.');
  const seen = new Map<string, number>();
  let total = 0;
  for (const [i, variant] of variants.entries()) {
    const at = `variants[${i}]`;
    if (!isRecord(variant)) {
      return problem(`${at} must be an object { destinationUrl, weight }; received ${kindOf(variant)}.`, at);
    }
    const unknown = unknownKey(variant, ['destinationUrl', 'weight']);
    if (unknown !== undefined) {
      return problem(
        `${at} holds the unknown field ${excerpt(unknown)}: a variant holds destinationUrl and weight.`,
        `${at}.${excerpt(unknown).slice(1, -1)}`,
      );
    }
    const { destinationUrl, weight } = variant;
    if (destinationUrl === undefined) return problem(`${at}.destinationUrl is missing.`, `${at}.destinationUrl`);
    const destination = destinationProblem(destinationUrl);
    if (destination !== null) return relabel(destination, `${at}.destinationUrl`);
    const url = destinationUrl as string;
    const earlier = seen.get(url);
    if (earlier !== undefined) {
      return problem(
        `${at}.destinationUrl is variants[${earlier}]'s too (${excerpt(url)}): give each destination once, with its whole weight.`,
        `${at}.destinationUrl`,
      );
    }
    seen.set(url, i);
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > 99) {
      return problem(`${at}.weight must be a whole number from 1 to 99; received ${kindOf(weight)}.`, `${at}.weight`);
    }
    total += weight;
  }
  if (total !== 100) return problem(`variants' weights sum to ${total}; they must sum to 100.`);
  return null;
}

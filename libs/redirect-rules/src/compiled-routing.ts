import { classifyAgent, DEVICE_BIT, OS_BIT } from './user-agent-class';
import { languageCode, preferredLanguage } from './preferred-language';
import { queryParameter } from './query-parameter';
import type { LinkRouting } from '@shortlink/events';
import { variantBucket, variantSeed } from './variant-bucket';

/**
 * What the redirect thread knows of a visit. Only what a link's rules need is read: `country()` (a GeoIP lookup) is
 * called only when a rule's country condition is reached, the User-Agent is classified only for a device or os rule.
 */
export interface Visit {
  readonly userAgent: string | undefined;
  readonly acceptLanguage: string | undefined;
  /** The request's raw query string, without `?`; '' when it has none. */
  readonly query: string;
  /** The client's address: read to choose a variant, never kept. */
  readonly address: string;
  /**
   * An address's country (ISO 3166-1 alpha-2; `XX` when unknown): the process's one lookup, shared by every visit,
   * so a visit is a plain object and allocates no closure.
   */
  readonly countryOf: (address: string) => string;
}

/** The destination a visit goes to and why: made once, when the link is compiled, so a choice allocates nothing. */
export interface Choice {
  readonly location: string;
  readonly matched: 'rule' | 'variant';
  /** The rule's or the variant's position in the link's lists. */
  readonly index: number;
}

/**
 * One rule, flattened, and its own `Choice`: every condition absent is "any" (0, '' or null) and costs one comparison.
 * Lists of codes are strings of character codes: a short string is the smallest thing V8 holds a list in.
 */
class CompiledRule implements Choice {
  readonly matched = 'rule' as const;
  constructor(
    readonly location: string,
    readonly index: number,
    readonly devices: number,
    readonly systems: number,
    /** Country codes run together (`DEATCH`): two characters each. */
    readonly countries: string,
    /** Language subtags, each one character of code `languageCode` (at most 32^3). */
    readonly languages: string,
    readonly queryName: string,
    readonly queryValues: readonly string[] | null,
  ) {}
}

/**
 * A link's rules and variants as the redirector's cache holds them beside the packed link. A link with neither has
 * none (`compileRouting` answers null): its cache entry stays the packed string it is today.
 */
export class CompiledRouting {
  constructor(
    readonly rules: readonly CompiledRule[],
    readonly seed: number,
    /** Variant i takes the buckets below the code of character i and at or above the one before: cumulative weights. */
    readonly bounds: string,
    readonly variants: readonly Choice[],
  ) {}
}

export interface CompileOptions {
  linkId: string;
  /** The installation's visitor secret: variants are sticky across redirectors sharing it. */
  secret: string;
  /** A destination as the Location header carries it (the redirector's `redirectLocation`); as given when absent. */
  location?: (destinationUrl: string) => string;
}

const bitsOf = (names: readonly string[] | undefined, bits: Readonly<Record<string, number>>) =>
  (names ?? []).reduce((all, name) => all | (bits[name] ?? 0), 0);

/** The compact form of a validated routing; null when it has no rules and no variants. */
export function compileRouting(routing: LinkRouting, options: CompileOptions): CompiledRouting | null {
  const { rules, variants } = routing;
  if (rules.length === 0 && (variants === null || variants.length === 0)) return null;
  const location = options.location ?? ((url: string) => url);
  const compiled = rules.map(
    ({ when, destinationUrl }, index) =>
      new CompiledRule(
        location(destinationUrl),
        index,
        bitsOf(when.device, DEVICE_BIT),
        bitsOf(when.os, OS_BIT),
        (when.country ?? []).join(''),
        String.fromCharCode(...(when.language ?? []).map(languageCode)),
        when.query?.name ?? '',
        when.query?.values ?? null,
      ),
  );
  let bounds = '';
  const choices: Choice[] = [];
  let sum = 0;
  for (const [index, variant] of (variants ?? []).entries()) {
    sum += variant.weight;
    bounds += String.fromCharCode(sum);
    choices.push(Object.freeze({ location: location(variant.destinationUrl), matched: 'variant' as const, index }));
  }
  const seed = bounds === '' ? 0 : variantSeed(options.secret, options.linkId);
  return new CompiledRouting(compiled, seed, bounds, choices);
}

function hasCode(codes: string, code: number): boolean {
  for (let i = 0; i < codes.length; i++) if (codes.charCodeAt(i) === code) return true;
  return false;
}

function hasCountry(codes: string, country: string): boolean {
  for (let i = 0; i < codes.length; i += 2) {
    if (codes.charCodeAt(i) === country.charCodeAt(0) && codes.charCodeAt(i + 1) === country.charCodeAt(1)) return true;
  }
  return false;
}

/**
 * Where a visit goes: the first rule whose conditions all hold, else a variant by the visitor's bucket, else null
 * (the link's own destination). Each fact is worked out at most once a visit, and only when a rule reads it.
 */
export function chooseDestination(routing: CompiledRouting, visit: Visit): Choice | null {
  // Each fact is read when a rule first needs it (-1: not yet), so a rule that holds early spares the others.
  let agent = -1;
  let language = -1;
  let country: string | undefined;
  for (const rule of routing.rules) {
    if (rule.devices !== 0 || rule.systems !== 0) {
      if (agent === -1) agent = classifyAgent(visit.userAgent);
      if (rule.devices !== 0 && (rule.devices & agent) === 0) continue;
      if (rule.systems !== 0 && (rule.systems & agent) === 0) continue;
    }
    if (rule.languages !== '') {
      if (language === -1) language = preferredLanguage(visit.acceptLanguage);
      if (!hasCode(rule.languages, language)) continue;
    }
    if (rule.queryValues !== null) {
      const value = queryParameter(visit.query, rule.queryName);
      if (value === undefined || !rule.queryValues.includes(value)) continue;
    }
    // Last: the only fact that may cost a lookup.
    if (rule.countries !== '' && !hasCountry(rule.countries, (country ??= visit.countryOf(visit.address)))) continue;
    return rule;
  }
  const bounds = routing.bounds;
  if (bounds === '') return null;
  const bucket = variantBucket(routing.seed, visit.address);
  for (let i = 0; i < bounds.length; i++) {
    if (bucket < bounds.charCodeAt(i)) return routing.variants[i] ?? null;
  }
  return null;
}

import { type Rejection } from './routing-errors';
import { ROUTING_LIMITS, rulesField, variantsField } from '@shortlink/events';
import { type DestinationCheck, validateRouting } from './routing-validation';

/**
 * A stand-in for the write API's `destinationUrlRejection`, in its words: the library only relays what it answers
 * (the write API's own tests hold the rule itself).
 */
const destinationProblem: DestinationCheck = (url) => {
  const reject = (code: string, detail: string): Rejection => ({
    status: 400,
    error: code === 'url_too_long' ? 'URLs must be at most 2048 characters' : 'Invalid request body',
    code,
    detail,
    field: 'url',
  });
  if (typeof url !== 'string') return reject('invalid_body', 'url must be a string holding an http or https URL.');
  if (url.length > 2048) return reject('url_too_long', `url is ${url.length} characters; at most 2048.`);
  if (!/^https?:\/\/[^/]/.test(url)) return reject('invalid_body', 'url has no scheme.');
  return null;
};

const rule = (when: unknown, destinationUrl: unknown = 'https://example.com/m') => ({ when, destinationUrl });
const variants = (...weights: unknown[]) =>
  weights.map((weight, i) => ({ destinationUrl: `https://example.com/v${i}`, weight }));

describe('validateRouting', () => {
  it('given rules of every kind and variants, when validated, then they are taken as they came', () => {
    const body = {
      rules: [
        rule({ device: ['mobile', 'tablet'], os: ['ios'] }),
        rule({ country: ['DE', 'AT'], language: ['de'] }),
        rule({ query: { name: 'utm_source', values: ['news', ''] } }),
      ],
      variants: variants(50, 30, 20),
    };
    expect(validateRouting(body, destinationProblem)).toEqual({ ok: true, routing: body });
  });

  it('given neither field, or empty rules and null variants, when validated, then the link has no routing', () => {
    const none = { ok: true, routing: { rules: [], variants: null } };
    expect(validateRouting({}, destinationProblem)).toEqual(none);
    expect(validateRouting({ rules: [], variants: null }, destinationProblem)).toEqual(none);
  });

  const many = Array.from({ length: 1_000_000 }, () => rule({ device: ['mobile'] }));
  const HOSTILE: [string, { rules?: unknown; variants?: unknown }, string, string, RegExp][] = [
    [
      'rules not a list',
      { rules: 'mobile' },
      'invalid_rules',
      'rules',
      /rules must be a list of rules; received the string "mobile"/,
    ],
    ['a million rules', { rules: many }, 'invalid_rules', 'rules', /holds 1000000 rules; at most 20/],
    [`${ROUTING_LIMITS.maxRules + 1} rules`, { rules: many.slice(0, 21) }, 'invalid_rules', 'rules', /21 rules/],
    [
      'a rule that is a string',
      { rules: ['x'] },
      'invalid_rules',
      'rules[0]',
      /must be an object \{ when, destinationUrl \}/,
    ],
    [
      'an unknown field in a rule',
      { rules: [{ ...rule({ os: ['ios'] }), weight: 5 }] },
      'invalid_rules',
      'rules[0].weight',
      /unknown field "weight"/,
    ],
    [
      'a __proto__ key',
      { rules: [JSON.parse('{"when":{"os":["ios"]},"destinationUrl":"https://a.b","__proto__":{}}')] },
      'invalid_rules',
      'rules[0].__proto__',
      /unknown field "__proto__"/,
    ],
    [
      'when missing',
      { rules: [{ destinationUrl: 'https://a.b' }] },
      'invalid_rules',
      'rules[0].when',
      /must be an object of conditions .* received nothing/,
    ],
    [
      'an empty when',
      { rules: [rule({})] },
      'invalid_rules',
      'rules[0].when',
      /is empty: give at least one of device, os, country, language or query/,
    ],
    [
      'an unknown condition',
      { rules: [rule({ browser: ['chrome'] })] },
      'invalid_rules',
      'rules[0].when.browser',
      /unknown condition "browser"/,
    ],
    [
      'an unknown device',
      { rules: [rule({ device: ['phone'] })] },
      'invalid_rules',
      'rules[0].when.device[0]',
      /one of mobile, tablet or desktop; received the string "phone"/,
    ],
    ['no values', { rules: [rule({ os: [] })] }, 'invalid_rules', 'rules[0].when.os', /holds 0 values; expected 1-50/],
    [
      'too many values',
      { rules: [rule({ country: Array(51).fill('DE') })] },
      'invalid_rules',
      'rules[0].when.country',
      /51 values/,
    ],
    [
      'a lower-case country',
      { rules: [rule({ country: ['DE', 'fr'] })] },
      'invalid_rules',
      'rules[0].when.country[1]',
      /two capital letters .* received the string "fr"/,
    ],
    [
      'a full language tag',
      { rules: [rule({ language: ['en-US'] })] },
      'invalid_rules',
      'rules[0].when.language[0]',
      /primary language subtag/,
    ],
    [
      'a number as a value',
      { rules: [rule({ language: [7] })] },
      'invalid_rules',
      'rules[0].when.language[0]',
      /received the number 7/,
    ],
    [
      'a query without values',
      { rules: [rule({ query: { name: 'x' } })] },
      'invalid_rules',
      'rules[0].when.query.values',
      /values is missing/,
    ],
    [
      'a query name of 10,000 characters',
      { rules: [rule({ query: { name: 'n'.repeat(10_000), values: ['a'] } })] },
      'invalid_rules',
      'rules[0].when.query.name',
      /received 10000 characters/,
    ],
    [
      'a control character in a query value',
      { rules: [rule({ query: { name: 'x', values: ['a\u0007'] } })] },
      'invalid_rules',
      'rules[0].when.query.values[0]',
      /received the string "a\\u0007"/,
    ],
    [
      'a lone surrogate',
      { rules: [rule({ query: { name: '\ud800', values: ['a'] } })] },
      'invalid_rules',
      'rules',
      /U\+0000 or a lone surrogate/,
    ],
    [
      'a rule without destination',
      { rules: [{ when: { os: ['ios'] } }] },
      'invalid_rules',
      'rules[0].destinationUrl',
      /is missing/,
    ],
    [
      'a rule to ftp:',
      { rules: [rule({ os: ['ios'] }), rule({ os: ['android'] }, 'ftp://x')] },
      'invalid_body',
      'rules[1].destinationUrl',
      /^rules\[1\]\.destinationUrl has no scheme/,
    ],
    [
      'a rule to a huge URL',
      { rules: [rule({ os: ['ios'] }, `https://a.b/${'x'.repeat(3000)}`)] },
      'url_too_long',
      'rules[0].destinationUrl',
      /3012 characters/,
    ],
    ['variants not a list', { variants: { a: 1 } }, 'invalid_variants', 'variants', /received an object/],
    ['one variant', { variants: variants(100) }, 'invalid_variants', 'variants', /holds 1 destinations; expected 2-4/],
    [
      'five variants',
      { variants: variants(20, 20, 20, 20, 20) },
      'invalid_variants',
      'variants',
      /holds 5 destinations/,
    ],
    [
      'a fractional weight',
      { variants: variants(50.5, 49.5) },
      'invalid_variants',
      'variants[0].weight',
      /whole number from 1 to 99; received the number 50.5/,
    ],
    [
      'a weight as a string',
      { variants: variants('50', 50) },
      'invalid_variants',
      'variants[0].weight',
      /received the string "50"/,
    ],
    [
      'a zero weight',
      { variants: variants(0, 100) },
      'invalid_variants',
      'variants[0].weight',
      /received the number 0/,
    ],
    [
      'weights summing to 99',
      { variants: variants(33, 33, 33) },
      'invalid_variants',
      'variants',
      /sum to 99; they must sum to 100/,
    ],
    [
      'a duplicate variant',
      {
        variants: [
          { destinationUrl: 'https://a.b', weight: 50 },
          { destinationUrl: 'https://a.b', weight: 50 },
        ],
      },
      'invalid_variants',
      'variants[1].destinationUrl',
      /variants\[0\]'s too/,
    ],
    [
      'an unknown field in a variant',
      {
        variants: [
          { destinationUrl: 'https://a.b', weight: 50, label: 'A' },
          { destinationUrl: 'https://c.d', weight: 50 },
        ],
      },
      'invalid_variants',
      'variants[0].label',
      /unknown field "label"/,
    ],
    [
      'a variant to nowhere',
      {
        variants: [
          { destinationUrl: 5, weight: 50 },
          { destinationUrl: 'https://c.d', weight: 50 },
        ],
      },
      'invalid_body',
      'variants[0].destinationUrl',
      /^variants\[0\]\.destinationUrl must be a string/,
    ],
  ];

  it.each(HOSTILE)('given %s, when validated, then a precise 400 names the part', (_, body, code, field, detail) => {
    const outcome = validateRouting(body, destinationProblem);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.rejection).toMatchObject({ status: 400, code, field });
    expect(outcome.rejection.detail).toMatch(detail);
  });

  // What the published schema cannot state stays in code: storable text, distinct destinations, the weights' sum.
  const BEYOND_THE_SCHEMA = ['a lone surrogate', 'a duplicate variant', 'weights summing to 99'];
  it.each(
    HOSTILE.filter(
      ([name, , code]) => code.startsWith('invalid_') && code !== 'invalid_body' && !BEYOND_THE_SCHEMA.includes(name),
    ),
  )('given %s, when parsed by the published schema, then it is refused there too', (_, body) => {
    const fits =
      rulesField.safeParse(body.rules ?? []).success && variantsField.safeParse(body.variants ?? null).success;
    expect(fits).toBe(false);
  });
});

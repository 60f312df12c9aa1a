import { z } from 'zod';

/**
 * The shape of a link's `rules` and `variants`, written once: here, beside the events that carry them whole
 * (`LinkCreated` and `LinkUpdated` v2); the validator (`@shortlink/redirect-rules`) checks each part with these (in
 * order, with its own texts) and the API document and the events' JSON schemas show them (`z.toJSONSchema`).
 * Objects are strict on purpose: a consumer that does not know a condition must refuse the rule, not widen it. A destination is
 * only a string here: its rules are the link's own (the write API's `destinationUrlRejection`), passed to the
 * validator, never restated.
 */

export const ROUTING_LIMITS = {
  /** Rules a link holds: each costs the redirect a few tens of nanoseconds when it does not match. */
  maxRules: 20,
  /** Values in one condition (`country: [...]`): room for the EU's 27 and more. */
  maxValues: 50,
  queryNameMaxLength: 100,
  queryValueMaxLength: 200,
  minVariants: 2,
  maxVariants: 4,
} as const;

export const DEVICES = ['mobile', 'tablet', 'desktop'] as const;
export const OPERATING_SYSTEMS = ['android', 'ios', 'windows', 'macos', 'linux', 'chromeos'] as const;
export const CONDITION_KINDS = ['device', 'os', 'country', 'language', 'query'] as const;
export type Device = (typeof DEVICES)[number];
export type OperatingSystem = (typeof OPERATING_SYSTEMS)[number];
export type ConditionKind = (typeof CONDITION_KINDS)[number];

/** C0 controls, DEL and C1 controls: invisible, and no part of a name or value worth matching. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
export const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;
export const COUNTRY_CODE = /^[A-Z]{2}$/;
export const LANGUAGE_SUBTAG = /^[a-z]{2,3}$/;

const values = <T extends z.ZodType>(value: T) => z.array(value).min(1).max(ROUTING_LIMITS.maxValues);

export const queryConditionField = z
  .strictObject({
    name: z.string().min(1).max(ROUTING_LIMITS.queryNameMaxLength).regex(NO_CONTROL),
    values: values(z.string().max(ROUTING_LIMITS.queryValueMaxLength).regex(NO_CONTROL)),
  })
  .meta({ description: 'The query parameter `name` (its first occurrence, decoded) is one of `values`.' });

export const whenField = z
  .strictObject({
    device: values(z.enum(DEVICES)).meta({ description: 'The device type, from the User-Agent.' }),
    os: values(z.enum(OPERATING_SYSTEMS)).meta({ description: 'The operating system, from the User-Agent.' }),
    country: values(z.string().regex(COUNTRY_CODE)).meta({
      description: 'ISO 3166-1 alpha-2 codes in capitals; an address of no known country is `XX`.',
    }),
    language: values(z.string().regex(LANGUAGE_SUBTAG)).meta({
      description:
        'Primary language subtags in lower case (`en`, `pt`): the Accept-Language entry of highest q-value, its primary subtag.',
    }),
    query: queryConditionField,
  })
  .partial()
  // JSON Schema shows it as minProperties; the refinement holds it when parsed.
  .refine((when) => Object.keys(when).length > 0, 'when holds no condition')
  .meta({
    minProperties: 1,
    description: 'Every condition given must hold; a condition holds when the visit has one of its values.',
  });

export const ruleField = z.strictObject({ when: whenField, destinationUrl: z.string() });

export const rulesField = z
  .array(ruleField)
  .max(ROUTING_LIMITS.maxRules)
  .meta({
    description: `At most ${ROUTING_LIMITS.maxRules} rules, tried in order: the first whose conditions all hold picks the destination. Empty: no rules.`,
    examples: [[{ when: { device: ['mobile'], country: ['DE', 'AT'] }, destinationUrl: 'https://example.com/de/app' }]],
  });

export const variantField = z.strictObject({
  destinationUrl: z.string(),
  weight: z.int().min(1).max(99),
});

export const variantsField = z
  .array(variantField)
  .min(ROUTING_LIMITS.minVariants)
  .max(ROUTING_LIMITS.maxVariants)
  .nullable()
  .meta({
    description: `${ROUTING_LIMITS.minVariants}-${ROUTING_LIMITS.maxVariants} destinations with whole-number weights summing to 100, each a different URL: a visit no rule matched goes to one of them, the same one for the same visitor. Null: none.`,
    examples: [
      [
        { destinationUrl: 'https://example.com/a', weight: 50 },
        { destinationUrl: 'https://example.com/b', weight: 50 },
      ],
    ],
  });

export type Condition = z.infer<typeof whenField>;
export type LinkRule = z.infer<typeof ruleField>;
export type Variant = z.infer<typeof variantField>;

/** A link's routing as it is stored and carried in its events. */
export interface LinkRouting {
  rules: LinkRule[];
  variants: Variant[] | null;
}

/** A link without rules or variants: routing costs it nothing. */
export const NO_ROUTING: LinkRouting = Object.freeze({ rules: [], variants: null });

/** A routing as it is stored (Postgres `routing`, the cache): null when it has no rules and no variants. */
export function storedRouting(routing: LinkRouting): LinkRouting | null {
  return routing.rules.length === 0 && (routing.variants === null || routing.variants.length === 0) ? null : routing;
}

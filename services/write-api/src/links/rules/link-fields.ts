import { z } from 'zod';
import { rulesField, SLUG_PATTERN, variantsField } from '@shortlink/events';
import { LIMITS } from '../../write-api-errors';

/**
 * The rules of a link's fields that a schema can state, written once: the validators check each field with these, in
 * the spec's error order and with each error's text, and the API document shows them (`z.toJSONSchema`). What a schema
 * cannot state stays in code: the URL parses, has no credentials and does not point here; reserved slugs; the plan's
 * shortest slug. JSON Schema patterns carry no flags, so none is used here.
 */

/** C0 controls, DEL and C1 controls: invisible, and no part of a URL or a label. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
export const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/** Neither starting nor ending with white space: `destinationUrl` is echoed as submitted, never trimmed. */
export const TRIMMED = /^\S(?:[\s\S]*\S)?$/;
export const HTTP_SCHEME = /^[hH][tT][tT][pP][sS]?:\/\//;

export const destinationUrlField = z
  .string()
  .max(LIMITS.urlMaxLength)
  .regex(NO_CONTROL)
  .regex(TRIMMED)
  .regex(HTTP_SCHEME)
  .meta({
    description:
      'An absolute http or https URL with a host, without a user name or password, not pointing at this service; no control characters and no white space before or after it.',
    examples: ['https://example.com/landing?utm_campaign=summer'],
  });

export const customSlugField = z
  .string()
  .regex(SLUG_PATTERN)
  .meta({
    description:
      '3-30 lowercase letters, digits and hyphens, not a reserved word; the free plan needs at least 4. Omitted or null: a 5-character slug with a digit is generated.',
    examples: ['summer'],
  });

export const tagField = z
  .string()
  .min(1)
  .max(LIMITS.tagMaxLength)
  .regex(NO_CONTROL)
  .meta({
    description: `Any text of 1-${LIMITS.tagMaxLength} characters (Unicode code points: an emoji is one) without control characters.`,
    examples: ['launch'],
  });

/** `POST /api/v1/links`: only these fields (another is refused, naming the one meant). */
export const createLinkBody = z
  .strictObject({
    url: destinationUrlField,
    customSlug: customSlugField.nullable().optional(),
    tag: tagField.nullable().optional(),
    rules: rulesField.optional(),
    variants: variantsField.optional(),
    domain: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          'One of your verified branded domains (docs/domains.md) to put the link on; the slug is unique on it. Leave it out (or null) for the installation’s own.',
        examples: ['go.example.com'],
      }),
  })
  .meta({
    // The first example is the reference page's default: without a custom slug, it can be sent twice.
    examples: [
      { url: 'https://example.com/landing?utm_campaign=summer', tag: 'launch' },
      { url: 'https://example.com/landing?utm_campaign=summer', customSlug: 'summer', tag: 'launch' },
    ],
  });

/** `PATCH /api/v1/links/:slug`: only these fields, at least one; `tag: null` removes the tag. */
export const updateLinkBody = z
  .strictObject({ url: destinationUrlField, tag: tagField.nullable(), rules: rulesField, variants: variantsField })
  .partial()
  .meta({
    minProperties: 1,
    examples: [
      { url: 'https://example.com/autumn' },
      { tag: null },
      { rules: [{ when: { language: ['de'] }, destinationUrl: 'https://example.com/de' }] },
      { variants: null },
    ],
  });

/** `POST /api/v1/links/bulk`: each item is checked as a single create's body, on its own. */
export const bulkCreateBody = z.object({ links: z.array(createLinkBody).min(1).max(LIMITS.bulkMaxLinks) }).meta({
  examples: [
    {
      links: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b', tag: 'ads' }],
    },
  ],
});

/** A field's value fits its schema. */
export const fits = (field: z.ZodType, value: unknown): boolean => field.safeParse(value).success;

/** A request schema as the API document shows it (JSON Schema 2020-12, the dialect of OpenAPI 3.1). */
export function documentedSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return json;
}

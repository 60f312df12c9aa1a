import { rulesField, variantsField } from '@shortlink/events';
import { z } from 'zod';

const ISO_MILLIS = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/** The Link object of the API contract (spec 2.1), as the write and read APIs return it. */
export const linkResponseProperties = {
  id: { type: 'string', format: 'uuid', description: 'The link’s identifier; it never changes.' },
  slug: { type: 'string', pattern: '^[a-z0-9-]{3,30}$', description: 'The short slug: custom or generated.' },
  shortUrl: {
    type: 'string',
    format: 'uri',
    description: '`{PUBLIC_BASE_URL}/{slug}`; on a branded domain, that domain in place of the base URL’s host.',
  },
  destinationUrl: { type: 'string', description: 'The destination URL exactly as submitted.' },
  tag: { type: ['string', 'null'], description: 'The tag as submitted, or null when none was given.' },
  createdAt: {
    type: 'string',
    format: 'date-time',
    pattern: ISO_MILLIS,
    description: 'ISO 8601 UTC with milliseconds.',
  },
  updatedAt: {
    type: 'string',
    format: 'date-time',
    pattern: ISO_MILLIS,
    description: 'When the link last changed (`PATCH`); equal to `createdAt` until then.',
  },
  // The one shape of the routing (@shortlink/events), as the request bodies and the events show it.
  rules: routingSchema(rulesField, 'Its redirect rules, tried in order; `[]` when none. See docs/redirect-rules.md.'),
  variants: routingSchema(variantsField, 'Its weighted destinations, or null when none. See docs/redirect-rules.md.'),
  domain: {
    type: ['string', 'null'],
    description:
      'The branded domain it is on (docs/domains.md), as DNS writes it; null: the installation’s own. A slug is unique per domain.',
  },
} as const;

/** A routing field's JSON Schema, for a response (zod's output side) or a request body (input). */
export function routingSchema(field: z.ZodType, description: string, io: 'input' | 'output' = 'output') {
  const { $schema: _, ...schema } = z.toJSONSchema(field, { io, target: 'draft-2020-12' });
  return { ...schema, description } as Record<string, unknown>;
}

export const LINK_RESPONSE_FIELDS = [
  'id',
  'slug',
  'shortUrl',
  'destinationUrl',
  'tag',
  'createdAt',
  'updatedAt',
  'rules',
  'variants',
  'domain',
] as const;

/** The Link object as a response schema: what the API's responses are serialised through. */
export const linkSchema = {
  type: 'object',
  properties: linkResponseProperties,
  required: LINK_RESPONSE_FIELDS,
  additionalProperties: false,
} as const;

export const LINK_EXAMPLE = {
  id: '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e',
  slug: 'summer',
  shortUrl: 'https://sho.rt/summer',
  destinationUrl: 'https://example.com/landing?utm_campaign=summer',
  tag: 'launch',
  createdAt: '2026-11-21T09:30:00.000Z',
  updatedAt: '2026-11-21T09:30:00.000Z',
  rules: [],
  variants: null,
  domain: null,
} as const;

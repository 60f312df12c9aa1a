/** The JSON body of every error response (see the error handler in server.ts). */
export const errorResponseSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, code: { type: 'string' } },
  required: ['error', 'code'],
} as const;

/** The Link object of the API contract (spec 2.1), as the write and read APIs return it. */
export const linkResponseProperties = {
  id: { type: 'string' },
  slug: { type: 'string' },
  shortUrl: { type: 'string' },
  destinationUrl: { type: 'string' },
  tag: { type: ['string', 'null'] },
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
} as const;

export const LINK_RESPONSE_FIELDS = [
  'id',
  'slug',
  'shortUrl',
  'destinationUrl',
  'tag',
  'createdAt',
  'updatedAt',
] as const;

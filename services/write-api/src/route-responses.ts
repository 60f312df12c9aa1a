import { UNAUTHORIZED } from '@shortlink/accounts';
import { errorResponse, HTTP_ERRORS, RESPONSE_HEADERS, type JsonSchema } from '@shortlink/http';
import { IDEMPOTENCY_KEY_REUSED, LIMITS } from './write-api-errors';

/** Responses and headers every write-API route shares, links and webhooks alike. */

export const idempotencyKeyHeader = {
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      minLength: 1,
      maxLength: LIMITS.idempotencyKeyMaxLength,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes a retry safe: the same key with the same request within 24 hours gets the first response again (with `Idempotent-Replayed: true`) and creates nothing; with another request it is a `422`.',
    },
  },
} as const;

export const replayed: JsonSchema = {
  type: 'string',
  enum: ['true'],
  description: 'This is the first response to this Idempotency-Key, sent again; nothing was created now.',
  'x-optional': true,
};

export const unauthorized = errorResponse(
  'No API key, or one that is malformed, unknown or revoked.',
  { unauthorized: UNAUTHORIZED },
  { 'WWW-Authenticate': RESPONSE_HEADERS.wwwAuthenticate },
);

export const bodyTooLarge = (bytes: number) =>
  errorResponse(`The body is over ${bytes / 1024} KiB.`, { bodyTooLarge: HTTP_ERRORS.bodyTooLarge });

export const contentCoded = errorResponse(
  'The body is not `application/json` (no `Content-Type`, or another one: `curl -d` sends `application/x-www-form-urlencoded`), or it was sent in a content coding (`Content-Encoding: gzip`, `br`, …): bodies are taken uncompressed.',
  { mediaType: HTTP_ERRORS.mediaType, contentCoded: HTTP_ERRORS.contentCoded },
  { 'Accept-Encoding': { ...RESPONSE_HEADERS.acceptEncoding, 'x-optional': true } },
);

export const idempotencyReused = errorResponse('This Idempotency-Key was already used with another request.', {
  idempotencyKeyReused: IDEMPOTENCY_KEY_REUSED,
});

/**
 * What a route on one of the account's resources that reads a body may also answer, beside its own: no key, no such
 * resource (or another account's), a body too large or not JSON, a store away.
 */
export const resourceRouteFailures = (notFound: JsonSchema, unavailable: JsonSchema) => ({
  401: unauthorized,
  404: notFound,
  413: bodyTooLarge(64 * 1024),
  415: contentCoded,
  503: unavailable,
});

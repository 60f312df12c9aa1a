import {
  API_KEY_SECURITY,
  API_ROUTE_TAGS,
  errorResponse,
  HTTP_ERRORS,
  MALFORMED_REQUESTS,
  RESPONSE_HEADERS,
  type ApiRoute,
  type JsonSchema,
} from '@shortlink/http';
import {
  INVALID_DOMAIN,
  LINK_EXAMPLE,
  LINK_NOT_FOUND,
  LINK_NOT_SETTLED,
  LINK_QUERYSTRING,
  linkSchema,
} from '@shortlink/links';
import { bulkCreateBody, createLinkBody, documentedSchema, updateLinkBody } from './links/rules/link-fields';
import {
  appendFailed,
  BULK_SIZE,
  changeNotConfirmed,
  changeUnconfirmed,
  IDEMPOTENCY_KEY_IN_PROGRESS,
  IDEMPOTENCY_KEY_INVALID,
  LIMITS,
  planRejection,
  REJECTIONS,
  SLUG_SPACE_EXHAUSTED,
  SLUG_TAKEN,
} from './write-api-errors';
import {
  bodyTooLarge,
  contentCoded,
  idempotencyKeyHeader,
  idempotencyReused,
  replayed,
  unauthorized,
} from './route-responses';
import { WEBHOOK_ROUTES } from './webhooks/webhook-routes';
import { DOMAIN_ROUTES } from './domains/domain-routes';

/**
 * The write API's routes: what app.ts registers and what the API document
 * shows, from the same objects. Every error text comes from write-api-errors.ts
 * (and the HTTP layer's from @shortlink/http).
 */

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', description: 'The link’s slug.' } },
  required: ['slug'],
} as const;

/** The errors of one link's creation, in the spec's order: what a single create answers and a bulk result holds. */
const CREATE_REJECTIONS = {
  invalidBody: REJECTIONS.invalidBody,
  unknownField: REJECTIONS.unknownCreateField,
  urlTooLong: REJECTIONS.urlTooLong,
  urlCredentials: REJECTIONS.urlCredentials,
  urlSelf: REJECTIONS.urlSelf,
  slugFormat: REJECTIONS.slugFormat,
  slugReserved: REJECTIONS.slugReserved,
  tag: REJECTIONS.tag,
  invalidDomain: INVALID_DOMAIN,
};
const PLAN_REJECTIONS = { planUpgradeRequired: planRejection('free') };
const CREATE_UNAVAILABLE = {
  appendFailed: appendFailed(null),
  slugSpaceExhausted: SLUG_SPACE_EXHAUSTED,
  storeUnavailable: HTTP_ERRORS.unavailable,
};

const IDEMPOTENCY_IN_PROGRESS = { idempotencyKeyInProgress: IDEMPOTENCY_KEY_IN_PROGRESS };
export const CREATE_LINK_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/links',
  schema: {
    operationId: 'createLink',
    summary: 'Create a short link',
    description:
      'Makes a short link to `url`, with the slug you choose in `customSlug` or a generated one. The first problem found is the one answered, in this order: the body and URL, the custom slug’s format, the reserved words, your plan, the tag. `201` is sent once the link is recorded.',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    headers: idempotencyKeyHeader,
    body: documentedSchema(createLinkBody),
    response: {
      201: {
        description: 'The link was created.',
        ...linkSchema,
        headers: {
          Location: { type: 'string', format: 'uri', description: 'The short URL (`shortUrl`).' },
          'Idempotent-Replayed': replayed,
        },
        examples: [LINK_EXAMPLE],
      },
      400: errorResponse(
        'The body (not a JSON object, or a field other than url, customSlug and tag), the URL, the custom slug, the tag or the Idempotency-Key is not acceptable; `detail` says what, `field` which field.',
        { ...CREATE_REJECTIONS, idempotencyKeyInvalid: IDEMPOTENCY_KEY_INVALID, ...MALFORMED_REQUESTS },
        { 'Idempotent-Replayed': replayed },
      ),
      401: unauthorized,
      403: errorResponse('The account’s plan does not allow this slug.', PLAN_REJECTIONS, {
        'Idempotent-Replayed': replayed,
      }),
      409: errorResponse(
        'The slug is taken (by a link, or by a deleted one: slugs are never given out again), or a request with this Idempotency-Key is still running.',
        { slugTaken: SLUG_TAKEN, ...IDEMPOTENCY_IN_PROGRESS },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter(true), 'Idempotent-Replayed': replayed },
      ),
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      422: idempotencyReused,
      503: errorResponse(
        'The event log did not acknowledge the link, no slug could be drawn, or a store is unreachable: try again.',
        CREATE_UNAVAILABLE,
        { 'Retry-After': RESPONSE_HEADERS.retryAfter(true) },
      ),
    },
  },
};

const createErrorTexts = errorResponse('', {
  ...CREATE_REJECTIONS,
  ...PLAN_REJECTIONS,
  slugTaken: SLUG_TAKEN,
  ...CREATE_UNAVAILABLE,
  internal: HTTP_ERRORS.internal,
}).properties as JsonSchema;

const bulkResultSchema = {
  type: 'object',
  description: 'One link’s result: `link` with status 201, or `error` and `code` as a single create would answer.',
  properties: {
    status: { type: 'integer', enum: [201, 400, 403, 409, 500, 503] },
    link: linkSchema,
    ...createErrorTexts,
  },
  required: ['status'],
} as const;

export const BULK_CREATE_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/links/bulk',
  schema: {
    operationId: 'createLinks',
    summary: 'Create up to 100 links in one request',
    description:
      'Each link is checked and created as a single create is, with the same errors; one link’s failure never fails the others. The results are in request order.',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    headers: idempotencyKeyHeader,
    body: documentedSchema(bulkCreateBody),
    response: {
      200: {
        description: 'One result per link, in request order.',
        type: 'object',
        properties: { results: { type: 'array', items: bulkResultSchema } },
        required: ['results'],
        headers: { 'Idempotent-Replayed': replayed },
        examples: [
          {
            results: [
              { status: 201, link: LINK_EXAMPLE },
              { status: 409, error: SLUG_TAKEN.message, code: SLUG_TAKEN.code, ...SLUG_TAKEN.explained },
            ],
          },
        ],
      },
      400: errorResponse(
        'The body is not `{"links": [...]}` of 1-100 links, or the Idempotency-Key is not acceptable.',
        {
          invalidBody: REJECTIONS.invalidBody,
          unknownField: REJECTIONS.unknownBulkField,
          bulkSize: BULK_SIZE,
          idempotencyKeyInvalid: IDEMPOTENCY_KEY_INVALID,
          ...MALFORMED_REQUESTS,
        },
      ),
      401: unauthorized,
      409: errorResponse('A request with this Idempotency-Key is still running.', IDEMPOTENCY_IN_PROGRESS, {
        'Retry-After': RESPONSE_HEADERS.retryAfter(),
      }),
      413: bodyTooLarge(LIMITS.bulkBodyLimitBytes),
      415: contentCoded,
      422: idempotencyReused,
      503: errorResponse(
        'A store is unreachable: nothing was created.',
        { storeUnavailable: HTTP_ERRORS.unavailable },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
      ),
    },
  },
};

const changeUnavailable = errorResponse(
  'The change is saved (redirects show it) but its event is not confirmed yet; or the database did not answer its commit (it may or may not be saved: sending it again is safe); or the link’s own creation is not confirmed yet (nothing was changed); or a store is unreachable (nothing was changed).',
  {
    changeNotConfirmed: changeNotConfirmed(null),
    changeUnconfirmed: changeUnconfirmed(null),
    linkNotSettled: LINK_NOT_SETTLED,
    storeUnavailable: HTTP_ERRORS.unavailable,
  },
  { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
);
const linkNotFound = errorResponse('No such link for this key: unknown, deleted, or another account’s.', {
  linkNotFound: LINK_NOT_FOUND,
});

export const UPDATE_LINK_ROUTE: ApiRoute = {
  method: 'PATCH',
  url: '/api/v1/links/:slug',
  schema: {
    operationId: 'updateLink',
    summary: 'Change a link’s destination and/or tag',
    description:
      'The slug never changes. A request that asks for what the link already is changes nothing. Once it answers, every redirect goes to the new destination.',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    params: slugParams,
    querystring: LINK_QUERYSTRING,
    body: documentedSchema(updateLinkBody),
    response: {
      200: { description: 'The changed link.', ...linkSchema, examples: [LINK_EXAMPLE] },
      400: errorResponse('The body names no field or another field, or a field is not acceptable.', {
        invalidBody: REJECTIONS.invalidBody,
        urlTooLong: REJECTIONS.urlTooLong,
        urlCredentials: REJECTIONS.urlCredentials,
        urlSelf: REJECTIONS.urlSelf,
        tag: REJECTIONS.tag,
        unknownField: REJECTIONS.unknownField,
        emptyChange: REJECTIONS.emptyChange,
        invalidDomain: INVALID_DOMAIN,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      404: linkNotFound,
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: changeUnavailable,
    },
  },
};

export const DELETE_LINK_ROUTE: ApiRoute = {
  method: 'DELETE',
  url: '/api/v1/links/:slug',
  schema: {
    operationId: 'deleteLink',
    summary: 'Delete a link',
    description:
      'From then on its redirect, reads, analytics, changes and deletion answer `404`; its slug is never given out again.',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    params: slugParams,
    querystring: LINK_QUERYSTRING,
    response: {
      204: { description: 'The link is deleted.', type: 'null' },
      400: errorResponse(
        'The request could not be read, or it came with a body that is not JSON, or `domain` is no hostname.',
        {
          ...MALFORMED_REQUESTS,
          invalidBody: HTTP_ERRORS.invalidBody,
          invalidDomain: INVALID_DOMAIN,
        },
      ),
      401: unauthorized,
      404: linkNotFound,
      // A deletion takes no body, but one sent is read as any request's is (a client's Content-Type on every request).
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: changeUnavailable,
    },
  },
};

export const WRITE_API_ROUTES: readonly ApiRoute[] = [
  CREATE_LINK_ROUTE,
  BULK_CREATE_ROUTE,
  UPDATE_LINK_ROUTE,
  DELETE_LINK_ROUTE,
  ...WEBHOOK_ROUTES,
  ...DOMAIN_ROUTES,
];

import { z } from 'zod';
import {
  API_KEY_SECURITY,
  API_ROUTE_TAGS,
  errorResponse,
  HTTP_ERRORS,
  MALFORMED_REQUESTS,
  RESPONSE_HEADERS,
  type ApiRoute,
} from '@shortlink/http';
import {
  createdWebhookSchema,
  deliveryAttemptSchema,
  replaySchema,
  responseSchema,
  rotatedSecretSchema,
  WEBHOOK_ERRORS as E,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EXAMPLE,
  WEBHOOK_LIMITS,
  webhookSchema,
} from '@shortlink/webhooks';
import { documentedSchema } from '../links/rules/link-fields';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_INVALID } from '../write-api-errors';
import {
  bodyTooLarge,
  contentCoded,
  idempotencyKeyHeader,
  idempotencyReused,
  replayed,
  resourceRouteFailures,
  unauthorized,
} from '../route-responses';

/**
 * The webhooks API's routes (docs/webhooks.md): what webhooks-api.ts registers
 * and what the API document shows. Bodies are documented from these zod
 * schemas and checked in code (rules/), each problem with its own text.
 */

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .meta({ description: 'Distinct event types, at least one.', examples: [['link.created', 'link.clicked']] });
const url = z
  .string()
  .max(WEBHOOK_LIMITS.urlMaxLength)
  .meta({
    description:
      'An absolute https URL without a user name, password or fragment, whose host is not a loopback, private, link-local or metadata address nor this service.',
    examples: ['https://hooks.example.com/shortlink'],
  });
const description = z
  .string()
  .max(WEBHOOK_LIMITS.descriptionMaxLength)
  .nullable()
  .meta({ description: 'Your note; null removes it.' });

const createBody = z
  .strictObject({ url, events, description: description.optional() })
  .meta({ examples: [{ url: 'https://hooks.example.com/shortlink', events: ['link.created', 'link.clicked'] }] });
const changeBody = z
  .strictObject({
    url,
    events,
    enabled: z.boolean().meta({ description: 'false: stop deliveries; true: resume them.' }),
    description,
  })
  .partial()
  .meta({ minProperties: 1, examples: [{ enabled: true }, { events: ['link.deleted'] }] });
const replayBody = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).meta({ description: 'Replay events from this time (not in the future).' }),
    until: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .meta({ description: 'Up to this time (after since, not in the future); omitted: up to now.' }),
    events: events.optional().meta({ description: 'A subset of the webhook’s events; omitted: all of them.' }),
  })
  .meta({ examples: [{ since: '2026-11-21T00:00:00Z' }] });

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The webhook’s id.' } },
  required: ['id'],
} as const;

const pageQuery = {
  type: 'object',
  properties: {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: WEBHOOK_LIMITS.maxPageSize,
      default: WEBHOOK_LIMITS.defaultPageSize,
    },
    cursor: { type: 'string', description: '`nextCursor` of the previous page, as it is.' },
  },
} as const;
const pageErrors = errorResponse('limit or cursor is not acceptable.', {
  invalidLimit: E.invalidLimit,
  invalidCursor: E.invalidCursor,
  ...MALFORMED_REQUESTS,
});

const notFound = errorResponse('No such webhook for this key: unknown, deleted, or another account’s.', {
  notFound: E.notFound,
});
const unavailable = errorResponse(
  'A store is unreachable: nothing was done.',
  { storeUnavailable: HTTP_ERRORS.unavailable },
  {
    'Retry-After': RESPONSE_HEADERS.retryAfter(),
  },
);

const URL_REJECTIONS = {
  invalidUrl: E.invalidUrl,
  urlTooLong: E.urlTooLong,
  httpsRequired: E.httpsRequired,
  urlCredentials: E.urlCredentials,
  urlPrivate: E.urlPrivate,
  urlSelf: E.urlSelf,
};

const webhook = responseSchema(webhookSchema);
const tags = [API_ROUTE_TAGS.webhooks];
const common = { tags, security: API_KEY_SECURITY };

export const CREATE_WEBHOOK_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/webhooks',
  schema: {
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description: `Deliveries of the chosen events start at once. The answer holds the signing secret: it is shown this once. An account has at most ${WEBHOOK_LIMITS.perAccount} webhooks.`,
    ...common,
    body: documentedSchema(createBody),
    response: {
      201: { description: 'The webhook, and its signing secret.', ...responseSchema(createdWebhookSchema) },
      400: errorResponse(
        'The body, the URL, the events or the description is not acceptable; `detail` says what, `field` which field.',
        {
          invalidBody: E.invalidBody,
          unknownField: E.unknownCreateField,
          ...URL_REJECTIONS,
          invalidEvents: E.invalidEvents,
          invalidDescription: E.invalidDescription,
          ...MALFORMED_REQUESTS,
        },
      ),
      401: unauthorized,
      403: errorResponse('The account has as many webhooks as it may.', { limitReached: E.limitReached }),
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: unavailable,
    },
  },
};

export const LIST_WEBHOOKS_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/webhooks',
  schema: {
    operationId: 'listWebhooks',
    summary: 'List your webhooks',
    description: 'Newest first, a page at a time: pass `nextCursor` as `cursor` for the next page (null on the last).',
    ...common,
    querystring: pageQuery,
    response: {
      200: {
        description: 'A page of webhooks.',
        type: 'object',
        properties: { webhooks: { type: 'array', items: webhook }, nextCursor: { type: ['string', 'null'] } },
        required: ['webhooks', 'nextCursor'],
        examples: [{ webhooks: [WEBHOOK_EXAMPLE], nextCursor: null }],
      },
      400: pageErrors,
      401: unauthorized,
      503: unavailable,
    },
  },
};

export const GET_WEBHOOK_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/webhooks/:id',
  schema: {
    operationId: 'getWebhook',
    summary: 'Read a webhook',
    description: 'Its settings, and whether it is enabled (if not, why and since when). Never its secret.',
    ...common,
    params: idParams,
    response: {
      200: { description: 'The webhook.', ...webhook, examples: [WEBHOOK_EXAMPLE] },
      401: unauthorized,
      404: notFound,
      503: unavailable,
    },
  },
};

export const UPDATE_WEBHOOK_ROUTE: ApiRoute = {
  method: 'PATCH',
  url: '/api/v1/webhooks/:id',
  schema: {
    operationId: 'updateWebhook',
    summary: 'Change a webhook',
    description: 'Its URL, events, description, or `enabled`. Enabling it again clears why it was disabled.',
    ...common,
    params: idParams,
    body: documentedSchema(changeBody),
    response: {
      200: { description: 'The changed webhook.', ...webhook },
      400: errorResponse('The body names no field or another field, or a field is not acceptable.', {
        invalidBody: E.invalidBody,
        unknownField: E.unknownChangeField,
        emptyChange: E.emptyChange,
        ...URL_REJECTIONS,
        invalidEvents: E.invalidEvents,
        invalidDescription: E.invalidDescription,
        ...MALFORMED_REQUESTS,
      }),
      ...resourceRouteFailures(notFound, unavailable),
    },
  },
};

export const DELETE_WEBHOOK_ROUTE: ApiRoute = {
  method: 'DELETE',
  url: '/api/v1/webhooks/:id',
  schema: {
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description:
      'Nothing more is delivered to it, including messages still waiting; its secrets and delivery history go with it.',
    ...common,
    params: idParams,
    response: {
      204: { description: 'The webhook is deleted.', type: 'null' },
      400: errorResponse('The request could not be read.', {
        ...MALFORMED_REQUESTS,
        invalidBody: HTTP_ERRORS.invalidBody,
      }),
      ...resourceRouteFailures(notFound, unavailable),
    },
  },
};

export const ROTATE_SECRET_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/webhooks/:id/rotate-secret',
  schema: {
    operationId: 'rotateWebhookSecret',
    summary: 'Give a webhook a new signing secret',
    description: `The new secret is shown this once. For ${WEBHOOK_LIMITS.previousSecretHours} hours every delivery carries a signature under the previous secret too, so your endpoint can switch without losing one; a secret older than that stops at once.`,
    ...common,
    params: idParams,
    response: {
      200: { description: 'The new secret.', ...responseSchema(rotatedSecretSchema) },
      400: errorResponse('The request could not be read.', {
        ...MALFORMED_REQUESTS,
        invalidBody: HTTP_ERRORS.invalidBody,
      }),
      ...resourceRouteFailures(notFound, unavailable),
    },
  },
};

const idempotencyErrors = {
  409: errorResponse('The webhook is disabled, or a request with this Idempotency-Key is still running.', {
    disabled: E.disabled,
    idempotencyKeyInProgress: IDEMPOTENCY_KEY_IN_PROGRESS,
  }),
  422: idempotencyReused,
};

export const TEST_WEBHOOK_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/webhooks/:id/test',
  schema: {
    operationId: 'testWebhook',
    summary: 'Send a webhook a test message',
    description: 'Queues one `webhook.test` message for it now; its attempts show in its deliveries.',
    ...common,
    params: idParams,
    headers: idempotencyKeyHeader,
    response: {
      202: {
        description: 'The test message is queued.',
        type: 'object',
        properties: { messageId: { type: 'string' } },
        required: ['messageId'],
        headers: { 'Idempotent-Replayed': replayed },
      },
      400: errorResponse('The request or its Idempotency-Key could not be read.', {
        ...MALFORMED_REQUESTS,
        invalidBody: HTTP_ERRORS.invalidBody,
        idempotencyKeyInvalid: IDEMPOTENCY_KEY_INVALID,
      }),
      401: unauthorized,
      404: notFound,
      ...idempotencyErrors,
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: unavailable,
    },
  },
};

export const LIST_DELIVERIES_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/webhooks/:id/deliveries',
  schema: {
    operationId: 'listWebhookDeliveries',
    summary: 'List a webhook’s delivery attempts',
    description: `Every attempt of the last ${WEBHOOK_LIMITS.attemptsKeptDays} days, newest first, a page at a time.`,
    ...common,
    params: idParams,
    querystring: pageQuery,
    response: {
      200: {
        description: 'A page of attempts.',
        type: 'object',
        properties: {
          deliveries: { type: 'array', items: responseSchema(deliveryAttemptSchema) },
          nextCursor: { type: ['string', 'null'] },
        },
        required: ['deliveries', 'nextCursor'],
      },
      400: pageErrors,
      401: unauthorized,
      404: notFound,
      503: unavailable,
    },
  },
};

export const REPLAY_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/webhooks/:id/replay',
  schema: {
    operationId: 'replayWebhook',
    summary: 'Deliver past events again',
    description:
      'Every matching event the log still holds from `since` (to `until`) is delivered again, with its original id and a header marking it a replay. Events older than the log keeps are not replayed.',
    ...common,
    params: idParams,
    headers: idempotencyKeyHeader,
    body: documentedSchema(replayBody),
    response: {
      202: {
        description: 'The replay is queued.',
        ...responseSchema(replaySchema),
        headers: { 'Idempotent-Replayed': replayed },
      },
      400: errorResponse('The body, the window or the events are not acceptable.', {
        invalidBody: E.invalidBody,
        unknownField: E.unknownReplayField,
        invalidReplayWindow: E.invalidReplayWindow,
        invalidEvents: E.invalidEvents,
        idempotencyKeyInvalid: IDEMPOTENCY_KEY_INVALID,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      404: notFound,
      ...idempotencyErrors,
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: unavailable,
    },
  },
};

export const WEBHOOK_ROUTES: readonly ApiRoute[] = [
  CREATE_WEBHOOK_ROUTE,
  LIST_WEBHOOKS_ROUTE,
  GET_WEBHOOK_ROUTE,
  UPDATE_WEBHOOK_ROUTE,
  DELETE_WEBHOOK_ROUTE,
  ROTATE_SECRET_ROUTE,
  TEST_WEBHOOK_ROUTE,
  LIST_DELIVERIES_ROUTE,
  REPLAY_ROUTE,
];

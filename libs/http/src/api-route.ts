import type { FastifySchema } from 'fastify';
import type { HttpError } from './errors';
import type { HttpErrorText } from './http-errors';

export type JsonSchema = Record<string, unknown>;

/**
 * One HTTP route as the service registers it and as `GET /openapi.json` shows it: the same schema objects, so the
 * document cannot drift from what the route answers. `schema` is fastify's route schema plus the document's own keys
 * (summary, tags, operationId, security, `x-examples`…), which fastify ignores. `params` and `response` are used by the
 * route as they are (a field missing here is missing on the wire); `body`, `querystring` and `headers` are for the
 * document only: the route checks them in code from the same zod schemas, each problem with its own error text.
 */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  schema: {
    operationId: string;
    summary: string;
    description?: string;
    tags: string[];
    security?: Record<string, string[]>[];
    params?: JsonSchema;
    querystring?: JsonSchema;
    headers?: JsonSchema;
    body?: JsonSchema;
    response: Record<number, JsonSchema>;
  };
  /** HEAD answers as GET does (fastify's own HEAD route), and is documented too. */
  head?: boolean;
}

/**
 * The part of a route's schema fastify itself applies: path parameters and
 * responses, and of a body only that it is a JSON object (anything else is a
 * `400 Invalid request body` before the route runs; its fields are checked in
 * code).
 */
export function servedSchema(route: ApiRoute): FastifySchema {
  const { params, body, response } = route.schema;
  return { ...(params ? { params } : {}), ...(body ? { body: { type: 'object' } } : {}), response };
}

/** The bearer API key of every `/api/` route: the name of the document's security scheme. */
export const API_KEY_SECURITY = [{ apiKey: [] }];
/** Routes anyone may call: redirects, health, metrics. */
export const NO_SECURITY: Record<string, string[]>[] = [];

export type ErrorText = HttpErrorText | HttpError | { error: string; code: string; detail: string; field?: string };

/** An error's body as the document's example shows it. */
function textOf(e: ErrorText): { error: string; code: string; detail: string; field?: string } {
  const { detail, field }: { detail: string; field?: string } = 'error' in e ? e : e.explained;
  return {
    error: 'error' in e ? e.error : e.message,
    code: e.code,
    detail,
    ...(field === undefined ? {} : { field }),
  };
}

const unique = (values: string[]): string[] => [...new Set(values)];

/** What every error body may add to its text and code (see `ErrorDetail`). */
export const ERROR_DETAIL_PROPERTIES = {
  detail: {
    type: 'string',
    description:
      'One sentence on what is wrong in this request: which field, what was expected, what was received (at most 40 characters of it, control characters as `\\uXXXX`). For people: its wording may change.',
  },
  field: { type: 'string', description: 'The body field the error is about, when it is about one.' },
} as const;

/**
 * A response with the error body `{"error": text, "code": code}` (and `detail`, `field`), listing
 * exactly the texts and codes it can carry, each as a named example. The
 * errors come from each service's error-text file, never retyped.
 */
export function errorResponse(
  description: string,
  errors: Readonly<Record<string, ErrorText>>,
  headers?: Record<string, JsonSchema>,
): JsonSchema {
  const texts = Object.entries(errors).map(([name, e]) => [name, textOf(e)] as const);
  return {
    description,
    type: 'object',
    properties: {
      error: { type: 'string', enum: unique(texts.map(([, t]) => t.error)) },
      code: { type: 'string', enum: unique(texts.map(([, t]) => t.code)) },
      ...ERROR_DETAIL_PROPERTIES,
    },
    required: ['error', 'code', 'detail'],
    ...(headers ? { headers } : {}),
    'x-examples': Object.fromEntries(texts.map(([name, t]) => [name, { summary: t.error, value: t }])),
  };
}

/**
 * Response headers as the document shows them. Each is required on its
 * response unless marked `x-optional` (the document turns that into
 * `required: false`).
 */
export const RESPONSE_HEADERS = {
  retryAfter: (optional = false): JsonSchema => ({
    type: 'integer',
    minimum: 0,
    description: 'Seconds to wait before sending the request again.',
    ...(optional ? { 'x-optional': true } : {}),
  }),
  wwwAuthenticate: { type: 'string', enum: ['Bearer'], description: 'The scheme the API key goes in.' },
  acceptEncoding: { type: 'string', enum: ['identity'], description: 'The only content coding a body may be in.' },
} as const;

/** The groups the document's operations are listed under. */
export const API_ROUTE_TAGS = {
  links: 'Links',
  analytics: 'Analytics',
  account: 'Account',
  redirects: 'Redirects',
  webhooks: 'Webhooks',
  domains: 'Domains',
  operations: 'Operations',
} as const;

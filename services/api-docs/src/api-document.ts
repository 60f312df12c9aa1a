import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { API_ROUTE_TAGS, errorResponse, HTTP_ERRORS, PROCESS_ROUTES, type ApiRoute } from '@shortlink/http';

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, PathItem> };
type PathItem = Record<string, Operation>;
interface Operation {
  responses: Record<string, Response | { $ref: string }>;
  [key: string]: unknown;
}
interface Response {
  description: string;
  headers?: Record<string, { required?: boolean; schema: Record<string, unknown> }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

export interface ApiDocumentOptions {
  /** `PUBLIC_BASE_URL`: the server the document's paths are relative to. */
  publicBaseUrl: string;
  version: string;
}

export const OPENAPI_VERSION = '3.1.0';

/** The document's title, and its reference page's: the project's name. */
export const API_TITLE = 'shortlink API';

/**
 * Errors of the HTTP layer that any request can meet before its route runs,
 * from `@shortlink/http`'s error texts: in every operation, by reference.
 */
const COMMON_RESPONSES = {
  408: [
    'RequestTimeout',
    errorResponse('The request was not complete in time; the connection is closed.', {
      requestTimeout: HTTP_ERRORS.requestTimeout,
    }),
  ],
  417: [
    'ExpectationFailed',
    errorResponse('An `Expect` other than `100-continue`.', { expectationFailed: HTTP_ERRORS.expectationFailed }),
  ],
  431: [
    'HeadersTooLarge',
    errorResponse('The request line and headers are over 16 KiB.', { headersTooLarge: HTTP_ERRORS.headersTooLarge }),
  ],
  500: [
    'InternalError',
    errorResponse('A failure of the service; the details are in its log, never in the answer.', {
      internal: HTTP_ERRORS.internal,
    }),
  ],
} as const;

/** What every answer to an authenticated request carries (401s aside): the key's rate limit (docs/integrators.md). */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests this key may make in the current minute.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the current minute ends.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'The limit and its window, e.g. `60;w=60`.', schema: { type: 'string' } },
} as const;

const RATE_LIMITED = errorResponse(
  'The key is over its plan’s rate limit (free: 60 requests a minute, pro: 3,000); retry after `Retry-After` seconds.',
  { rateLimited: HTTP_ERRORS.rateLimited },
);

const OVERLOADED = errorResponse(
  'The instance is over capacity (docs/reliability.md): nothing was done; send the request again after `Retry-After` seconds.',
  { overloaded: HTTP_ERRORS.overloaded },
);

const DESCRIPTION = `A short-link service: create links, follow them, read their click analytics.

Every error answer has the body \`{"error": text, "code": code}\`: \`error\` is for people (the spec's texts, exactly), \`code\` is stable for programs. Most also carry \`detail\`, one sentence on what is wrong in this request (which field, what was expected, at most 40 characters of what was received), and \`field\` when the error is about one field; \`detail\`'s wording may change. Each response below lists the texts and codes it can carry.

Requests are JSON (\`Content-Type: application/json\`): a body without it, or with another type (\`curl -d\` sends \`application/x-www-form-urlencoded\`), is a \`415\`; a body that is not a JSON object, names a field the operation does not take, or holds U+0000 or a lone surrogate (outside a custom slug, which gets the slug's own text) is a \`400\`. Every \`/api/\` request needs \`Authorization: Bearer <API key>\`; keys are issued with \`npm run apikey\`. A known path asked with a method it does not take is a \`405 Method Not Allowed\` with \`Allow\` naming the methods it takes; unknown paths under \`/api/\` are a \`404 Not found\`.`;

const TAGS = [
  { name: API_ROUTE_TAGS.links, description: 'Create, read, change and delete short links.' },
  { name: API_ROUTE_TAGS.analytics, description: 'Click counts and breakdowns, from ClickHouse.' },
  { name: API_ROUTE_TAGS.account, description: 'What the key’s account is and what its plan allows.' },
  { name: API_ROUTE_TAGS.redirects, description: 'The short URLs themselves.' },
  { name: API_ROUTE_TAGS.webhooks, description: 'Endpoints told of link events as they happen (docs/webhooks.md).' },
  {
    name: API_ROUTE_TAGS.domains,
    description: 'Branded domains: your own hostnames, proven by a DNS record (docs/domains.md).',
  },
  { name: API_ROUTE_TAGS.operations, description: 'For load balancers and monitoring.' },
];

const notServed = (): never => {
  throw new Error('the document’s fastify instance builds the document only; it serves nothing');
};

/**
 * The OpenAPI document of the whole HTTP API, from the route definitions the
 * services register (and `/healthz`, `/readyz`, `/metrics`, which every process serves): the routes
 * go through `@fastify/swagger` on a fastify instance of their own that
 * never listens, so the document is the same whichever process serves it.
 */
export async function buildApiDocument(
  routes: readonly ApiRoute[],
  options: ApiDocumentOptions,
): Promise<OpenApiDocument> {
  const app = Fastify({ logger: false });
  // Nothing is validated or serialised here: the routes exist to be described.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: {
        title: API_TITLE,
        version: options.version,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: options.publicBaseUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key (`slk_` and 32 characters), issued with `npm run apikey -- create`. Missing, malformed, unknown or revoked: `401` with `WWW-Authenticate: Bearer`.',
          },
        },
      },
    },
  });
  for (const route of [...routes, ...PROCESS_ROUTES]) {
    app.route({
      method: route.method,
      url: route.url,
      schema: structuredClone(route.schema),
      exposeHeadRoute: route.head === true,
      config: { swagger: { exposeHeadRoute: route.head === true } },
      handler: notServed,
    });
  }
  await app.ready();
  const document = app.swagger() as unknown as OpenApiDocument;
  await app.close();
  return finish(document);
}

/** What `@fastify/swagger` does not write: required response headers, and the HTTP layer's errors. */
function finish(document: OpenApiDocument): OpenApiDocument {
  const components = document.components as Record<string, unknown>;
  const overloaded = commonResponse(OVERLOADED);
  overloaded.headers = { 'Retry-After': { required: true, schema: { type: 'integer' } } };
  components.responses = {
    ...Object.fromEntries(Object.values(COMMON_RESPONSES).map(([name, schema]) => [name, commonResponse(schema)])),
    Overloaded: overloaded,
  };
  if (components.schemas && Object.keys(components.schemas).length === 0) delete components.schemas;
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      for (const response of Object.values(operation.responses)) {
        if ('$ref' in response) continue;
        markRequiredHeaders(response);
        for (const media of Object.values(response.content ?? {})) {
          // @fastify/swagger copies the response's description into its schema too.
          if (media.schema?.description === response.description) delete media.schema.description;
          htmlAlternative(response, media.schema);
        }
      }
      for (const [status, [name]] of Object.entries(COMMON_RESPONSES)) {
        operation.responses[status] ??= { $ref: `#/components/responses/${name}` };
      }
      if (Array.isArray(operation.security) && operation.security.length > 0) {
        shedUnderLoad(operation);
        rateLimited(operation);
      }
    }
  }
  return document;
}

/**
 * An operation that takes an API key is rate-limited per key: its answers
 * carry the key's `RateLimit-*` headers (a 401 knows no key), and a `429`
 * with `Retry-After` is among them.
 */
function rateLimited(operation: Operation): void {
  const limited = commonResponse(RATE_LIMITED);
  limited.headers = { 'Retry-After': { required: true, schema: { type: 'integer' } } };
  operation.responses['429'] ??= limited;
  for (const [status, response] of Object.entries(operation.responses)) {
    if ('$ref' in response || status === '401') continue;
    // A 503 may be the load shedding's, answered before the key is read (shedUnderLoad).
    const required = status !== '503';
    response.headers = {
      ...response.headers,
      ...Object.fromEntries(
        Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [name, { ...header, required }]),
      ),
    };
  }
}

/**
 * An operation that takes an API key is the API's, which sheds load (docs/reliability.md): `503 overloaded` with
 * `Retry-After` is among its answers, beside any `503` of its own.
 */
/** An error response's JSON body as `errorResponse` writes it: its texts and codes listed, each an example. */
interface ErrorMedia {
  schema?: { properties?: Record<string, { enum?: string[] }> };
  examples?: Record<string, unknown>;
}

function shedUnderLoad(operation: Operation): void {
  const own = operation.responses['503'];
  if (own === undefined) {
    // By reference, as the HTTP layer's own errors: refused before the key is read, it carries no RateLimit-*.
    operation.responses['503'] = { $ref: '#/components/responses/Overloaded' };
    return;
  }
  if ('$ref' in own) return;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- untyped JSON, in errorResponse's shape
  const media = own.content?.['application/json'] as unknown as ErrorMedia | undefined;
  const properties = media?.schema?.properties;
  if (!media || !properties?.error?.enum || !properties.code?.enum) return;
  if (properties.code.enum.includes(HTTP_ERRORS.overloaded.code)) return;
  properties.error.enum.push(HTTP_ERRORS.overloaded.error);
  properties.code.enum.push(HTTP_ERRORS.overloaded.code);
  own.description += ' Or the instance is over capacity (`overloaded`): nothing was done.';
  const { error, code, detail } = HTTP_ERRORS.overloaded;
  media.examples = { ...media.examples, overloaded: { summary: error, value: { error, code, detail } } };
}

/** A response a browser gets as a page (`x-html-alternative` says what it shows): its `text/html` media type. */
function htmlAlternative(response: Response, schema: Record<string, unknown> | undefined): void {
  const page = schema?.['x-html-alternative'];
  if (typeof page !== 'string') return;
  delete schema?.['x-html-alternative'];
  response.content = { ...response.content, 'text/html': { schema: { type: 'string', description: page } } };
}

function markRequiredHeaders(response: Response): void {
  for (const header of Object.values(response.headers ?? {})) {
    const optional = header.schema['x-optional'] === true;
    delete header.schema['x-optional'];
    header.required = !optional;
  }
}

function commonResponse(schema: Record<string, unknown>): Response & Record<string, unknown> {
  const { description, 'x-examples': examples, ...body } = schema;
  return {
    description: description as string,
    content: { 'application/json': { schema: body, examples } as { schema: Record<string, unknown> } },
  };
}

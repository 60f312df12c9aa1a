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
import { DOMAIN_ERRORS as E, DOMAIN_EXAMPLE, DOMAIN_LIMITS } from '@shortlink/domains';
import { documentedSchema } from '../links/rules/link-fields';
import { REJECTIONS } from '../write-api-errors';
import { bodyTooLarge, contentCoded, resourceRouteFailures, unauthorized } from '../route-responses';

/**
 * The domains API's routes (docs/domains.md): what domains-api.ts registers
 * and what the API document shows. Bodies are documented from these zod
 * schemas and checked in code (rules/domain-body.ts), each problem with its own text.
 */

const hostname = z.string().meta({
  description:
    'A DNS name of two labels or more, as you would type it: case, a trailing dot, a port and IDN (Unicode) are normalised.',
  examples: ['links.example.com'],
});
const redirect = z
  .string()
  .max(DOMAIN_LIMITS.redirectUrlMaxLength)
  .nullable()
  .meta({ description: 'An absolute http or https URL, under a link destination’s rules; null removes it.' });

const createBody = z.strictObject({ hostname }).meta({ examples: [{ hostname: 'links.example.com' }] });
const changeBody = z
  .strictObject({
    rootRedirect: redirect.meta({ description: 'Where the bare hostname (`/`) redirects; null: nowhere.' }),
    notFoundRedirect: redirect.meta({ description: 'Where an unknown slug on this hostname redirects; null: a 404.' }),
  })
  .partial()
  .meta({ minProperties: 1, examples: [{ rootRedirect: 'https://www.example.com/' }] });

const domain = z.object({
  hostname: z.string().meta({ description: 'As stored and compared: ASCII (IDN in punycode), lower case.' }),
  status: z.enum(['pending', 'verified']),
  verification: z
    .object({
      type: z.literal('TXT'),
      name: z.string().meta({ description: '`_shortlink-challenge.<hostname>`' }),
      value: z.string().meta({ description: '`shortlink-verify=<token>`, the token this claim’s own.' }),
    })
    .meta({ description: 'The TXT record to publish, then call verify.' }),
  verifiedAt: z.iso.datetime().nullable(),
  rootRedirect: z.string().nullable(),
  notFoundRedirect: z.string().nullable(),
  createdAt: z.iso.datetime(),
});
const { $schema: _dialect, ...domainSchema } = z.toJSONSchema(domain, { io: 'output' });

const hostnameParams = {
  type: 'object',
  properties: {
    hostname: { type: 'string', description: 'The domain’s hostname, in any spelling it normalises from.' },
  },
  required: ['hostname'],
} as const;

const notFound = errorResponse('No such domain for this key: unknown, deleted, or another account’s.', {
  notFound: E.notFound,
});
const unavailable = errorResponse(
  'A store is unreachable: nothing was done.',
  { storeUnavailable: HTTP_ERRORS.unavailable },
  { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
);
const HOSTNAME_REJECTIONS = {
  invalidHostname: E.invalidHostname,
  hostnameIpAddress: E.hostnameIpAddress,
  hostnameMixedScripts: E.hostnameMixedScripts,
  hostnamePublicSuffix: E.hostnamePublicSuffix,
  hostnameSelf: E.hostnameSelf,
};
const readErrors = { ...MALFORMED_REQUESTS, invalidBody: HTTP_ERRORS.invalidBody };

const tags = [API_ROUTE_TAGS.domains];
const common = { tags, security: API_KEY_SECURITY };

export const CREATE_DOMAIN_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/domains',
  schema: {
    operationId: 'createDomain',
    summary: 'Add a branded domain',
    description: `The domain is pending until you prove you control its DNS: publish the TXT record of \`verification\`, then call verify. An account has at most ${DOMAIN_LIMITS.perAccount} domains.`,
    ...common,
    body: documentedSchema(createBody),
    response: {
      201: {
        description: 'The pending domain and the TXT record to publish.',
        ...domainSchema,
        examples: [DOMAIN_EXAMPLE],
      },
      400: errorResponse('The body or the hostname is not acceptable; `detail` says why.', {
        invalidBody: E.invalidBody,
        unknownField: E.unknownCreateField,
        ...HOSTNAME_REJECTIONS,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      403: errorResponse('The account has as many domains as it may.', { limitReached: E.limitReached }),
      409: errorResponse('This account added the hostname already, or another account verified it.', {
        exists: E.exists,
        taken: E.taken,
      }),
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      503: unavailable,
    },
  },
};

export const LIST_DOMAINS_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/domains',
  schema: {
    operationId: 'listDomains',
    summary: 'List your domains',
    description: `All of them (at most ${DOMAIN_LIMITS.perAccount}), by hostname.`,
    ...common,
    response: {
      200: {
        description: 'The account’s domains.',
        type: 'object',
        properties: { domains: { type: 'array', items: domainSchema } },
        required: ['domains'],
        examples: [{ domains: [DOMAIN_EXAMPLE] }],
      },
      401: unauthorized,
      503: unavailable,
    },
  },
};

export const GET_DOMAIN_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/domains/:hostname',
  schema: {
    operationId: 'getDomain',
    summary: 'Read a domain',
    ...common,
    params: hostnameParams,
    response: {
      200: { description: 'The domain.', ...domainSchema, examples: [DOMAIN_EXAMPLE] },
      401: unauthorized,
      404: notFound,
      503: unavailable,
    },
  },
};

export const VERIFY_DOMAIN_ROUTE: ApiRoute = {
  method: 'POST',
  url: '/api/v1/domains/:hostname/verify',
  schema: {
    operationId: 'verifyDomain',
    summary: 'Verify a domain',
    description:
      'Looks the TXT record up in DNS now. A verified domain stays verified (verify again is a `200` with no lookup).',
    ...common,
    params: hostnameParams,
    response: {
      200: { description: 'The verified domain.', ...domainSchema },
      400: errorResponse('The request could not be read.', readErrors),
      401: unauthorized,
      404: notFound,
      409: errorResponse('Another account verified this hostname first.', { taken: E.taken }),
      413: bodyTooLarge(64 * 1024),
      415: contentCoded,
      422: errorResponse(
        'DNS answered, without this claim’s TXT record: none at the name, or only other values. `detail` says which.',
        { notVerified: E.notVerified },
      ),
      503: errorResponse(
        'DNS did not answer in time or answered with a failure (SERVFAIL, REFUSED): try again; or a store is unreachable.',
        { dnsUnavailable: E.dnsUnavailable, storeUnavailable: HTTP_ERRORS.unavailable },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
      ),
    },
  },
};

export const UPDATE_DOMAIN_ROUTE: ApiRoute = {
  method: 'PATCH',
  url: '/api/v1/domains/:hostname',
  schema: {
    operationId: 'updateDomain',
    summary: 'Change a domain’s redirects',
    description:
      'Where the bare hostname and an unknown slug on it redirect. Stored and served now; redirects on branded domains are not answered yet.',
    ...common,
    params: hostnameParams,
    body: documentedSchema(changeBody),
    response: {
      200: { description: 'The changed domain.', ...domainSchema },
      400: errorResponse('The body names no field or another field, or a URL is not acceptable.', {
        invalidBody: E.invalidBody,
        unknownField: E.unknownChangeField,
        emptyChange: E.emptyChange,
        urlTooLong: REJECTIONS.urlTooLong,
        urlCredentials: REJECTIONS.urlCredentials,
        urlSelf: REJECTIONS.urlSelf,
        ...MALFORMED_REQUESTS,
      }),
      ...resourceRouteFailures(notFound, unavailable),
    },
  },
};

export const DELETE_DOMAIN_ROUTE: ApiRoute = {
  method: 'DELETE',
  url: '/api/v1/domains/:hostname',
  schema: {
    operationId: 'deleteDomain',
    summary: 'Delete a domain',
    description:
      'The hostname is free to be claimed again, by any account. A domain with links cannot be deleted: delete its links first.',
    ...common,
    params: hostnameParams,
    response: {
      204: { description: 'The domain is deleted.', type: 'null' },
      400: errorResponse('The request could not be read.', readErrors),
      409: errorResponse('Links are on this domain.', { inUse: E.inUse }),
      ...resourceRouteFailures(notFound, unavailable),
    },
  },
};

export const DOMAIN_ROUTES: readonly ApiRoute[] = [
  CREATE_DOMAIN_ROUTE,
  LIST_DOMAINS_ROUTE,
  GET_DOMAIN_ROUTE,
  VERIFY_DOMAIN_ROUTE,
  UPDATE_DOMAIN_ROUTE,
  DELETE_DOMAIN_ROUTE,
];

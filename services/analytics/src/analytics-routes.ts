import { PLAN_NAMES, PLANS, UNAUTHORIZED } from '@shortlink/accounts';
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
  QR_SCAN_PARAMETER,
  LINK_EXAMPLE,
  LINK_NOT_FOUND,
  LINK_NOT_SETTLED,
  LINK_RESPONSE_FIELDS,
  linkResponseProperties,
  linkSchema,
  LINK_QUERYSTRING,
  INVALID_DOMAIN,
} from '@shortlink/links';
import { RANGES } from './analytics/range';
import { CLICK_EXPORT_ROUTE } from './clicks/export-api-route';
import {
  ACCOUNT_LIMITS,
  GROUP_BYS,
  INVALID_GROUP_BY,
  INVALID_CURSOR,
  INVALID_LIMIT,
  INVALID_QR_FORMAT,
  INVALID_QR_MARGIN,
  INVALID_QR_SIZE,
  QR_LIMITS,
  INVALID_RANGE,
  INVALID_SEARCH,
  INVALID_TAG_FILTER,
  LIST_LIMITS,
  rangeNeedsPro,
} from './analytics-errors';

/**
 * The read API's routes: what app.ts registers and what the API document
 * shows, from the same objects. Every error text comes from analytics-errors.ts
 * (and the HTTP layer's from @shortlink/http). The query parameters are
 * checked in code (list-query.ts, range.ts), which names the parameter at
 * fault; their documented schemas are built from the same limits.
 */

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', description: 'The link’s slug.' } },
  required: ['slug'],
} as const;

const unauthorized = errorResponse(
  'No API key, or one that is malformed, unknown or revoked.',
  { unauthorized: UNAUTHORIZED },
  { 'WWW-Authenticate': RESPONSE_HEADERS.wwwAuthenticate },
);
const linkNotFound = errorResponse('No such link for this key: unknown, deleted, or another account’s.', {
  linkNotFound: LINK_NOT_FOUND,
});
const storeUnavailable = errorResponse(
  'A store is unreachable: try again.',
  { storeUnavailable: HTTP_ERRORS.unavailable },
  { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
);

/** A link's own routes: its store, or its own creation not confirmed yet. */
const linkUnavailable = errorResponse(
  'A store is unreachable, or the link’s own creation is not confirmed yet: try again.',
  { storeUnavailable: HTTP_ERRORS.unavailable, linkNotSettled: LINK_NOT_SETTLED },
  { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
);

const nullableString = { type: ['string', 'null'] } as const;

const linkWithPreviewSchema = {
  type: 'object',
  properties: {
    ...linkResponseProperties,
    preview: {
      type: 'object',
      description:
        'What the destination says about itself, fetched in the background after the link is created or its destination changed; `pending` until then.',
      properties: {
        status: { type: 'string', enum: ['pending', 'ready', 'failed'] },
        title: nullableString,
        description: nullableString,
        image: nullableString,
        fetchedAt: { type: ['string', 'null'], format: 'date-time' },
      },
      required: ['status', 'title', 'description', 'image', 'fetchedAt'],
      additionalProperties: false,
    },
  },
  required: [...LINK_RESPONSE_FIELDS, 'preview'],
  additionalProperties: false,
} as const;

export const LINK_READ_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/links/:slug',
  schema: {
    operationId: 'getLink',
    summary: 'Read a link, with its preview',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    params: slugParams,
    querystring: LINK_QUERYSTRING,
    response: {
      200: {
        description: 'The Link object and its preview.',
        ...linkWithPreviewSchema,
        examples: [
          {
            ...LINK_EXAMPLE,
            preview: {
              status: 'ready',
              title: 'Summer sale',
              description: 'Everything half price',
              image: 'https://example.com/summer.png',
              fetchedAt: '2026-11-21T09:30:01.250Z',
            },
          },
        ],
      },
      400: errorResponse('The request could not be read, or `domain` is no hostname.', {
        ...MALFORMED_REQUESTS,
        invalidDomain: INVALID_DOMAIN,
      }),
      401: unauthorized,
      404: linkNotFound,
      503: linkUnavailable,
    },
  },
};

export const LINK_LIST_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/links',
  schema: {
    operationId: 'listLinks',
    summary: 'List the caller’s links, newest first, a page at a time',
    description:
      'Each parameter at most once; parameters it does not know are ignored. `nextCursor` is null on the last page.',
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    querystring: {
      type: 'object',
      properties: {
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: LIST_LIMITS.maxLimit,
          default: LIST_LIMITS.defaultLimit,
          description: 'Links per page.',
        },
        cursor: { type: 'string', description: '`nextCursor` of the previous page, as it is.' },
        tag: {
          type: 'string',
          minLength: 1,
          maxLength: LIST_LIMITS.tagMaxLength,
          description: 'Only links with exactly this tag.',
        },
        search: {
          type: 'string',
          minLength: 1,
          maxLength: LIST_LIMITS.searchMaxLength,
          description: 'Only links whose slug or destination contains this text, in any case.',
        },
      },
    },
    response: {
      200: {
        description: 'A page of links.',
        type: 'object',
        properties: {
          links: { type: 'array', items: linkSchema },
          nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page.' },
        },
        required: ['links', 'nextCursor'],
        additionalProperties: false,
        examples: [{ links: [LINK_EXAMPLE], nextCursor: null }],
      },
      400: errorResponse('A parameter is not acceptable.', {
        invalidLimit: INVALID_LIMIT,
        invalidCursor: INVALID_CURSOR,
        invalidTag: INVALID_TAG_FILTER,
        invalidSearch: INVALID_SEARCH,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      503: storeUnavailable,
    },
  },
};

const buckets = (description: string, top?: number) =>
  ({
    type: 'array',
    description,
    ...(top === undefined ? {} : { maxItems: top }),
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
      required: ['name', 'count'],
      additionalProperties: false,
    },
  }) as const;

const routeCounts = (key: 'rule' | 'variant', description: string) =>
  ({
    type: 'array',
    description,
    items: {
      type: 'object',
      properties: {
        [key]: { type: 'integer', minimum: 0 },
        clicks: { type: 'integer', minimum: 0 },
        uniqueVisitors: { type: 'integer', minimum: 0 },
      },
      required: [key, 'clicks', 'uniqueVisitors'],
      additionalProperties: false,
    },
  }) as const;

const analyticsSchema = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    range: { type: 'string', enum: RANGES },
    totalClicks: { type: 'integer', minimum: 0 },
    uniqueVisitors: { type: 'integer', minimum: 0, description: 'Distinct visitors, by hashed IP address.' },
    clicksOverTime: {
      type: 'array',
      description: 'One entry per UTC day of the range, oldest first, days without clicks included.',
      items: {
        type: 'object',
        properties: {
          date: { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
          clicks: { type: 'integer', minimum: 0 },
        },
        required: ['date', 'clicks'],
        additionalProperties: false,
      },
    },
    referrers: buckets('Top 10 referrer origins; `Direct` for none.', 10),
    countries: buckets('Top 10 countries (ISO 3166-1 alpha-2; `XX` when unknown).', 10),
    devices: buckets('`desktop`, `mobile`, `tablet` and others.'),
    browsers: buckets('Top 10 browser families.', 10),
    triggers: buckets(
      'What started the clicks: `link` (the short URL followed) and `qr` (its QR code scanned), each listed, most first. An addition to the spec.',
      2,
    ),
    filtered: {
      type: 'object',
      description:
        'The redirects of the range that were answered but not counted as clicks, so you can audit them. `reasons`: every reason, most first: `crawler` (search engines, link previews of chat apps), `http_library` (curl, python-requests, …), `head` (a request that is not a GET), `prefetch` (a browser fetching ahead) and `no_user_agent`. `crawlers`: the crawlers by family, most first (`other` for one not told apart). Nothing else of these requests is kept. An addition to the spec.',
      properties: {
        total: { type: 'integer', minimum: 0 },
        reasons: buckets('Every reason with its redirects, most first.', 5),
        crawlers: buckets('The crawlers’ redirects by family, most first; families without any are left out.'),
      },
      required: ['total', 'reasons', 'crawlers'],
      additionalProperties: false,
    },
    byRule: routeCounts(
      'rule',
      'The clicks each of the link’s redirect rules took (`rule`: its position in `rules`, from 0), and their distinct visitors; rules without clicks are left out, `[]` for a link without rules. An addition to the spec.',
    ),
    byVariant: routeCounts(
      'variant',
      'The clicks each of the link’s weighted variants took (`variant`: its position in `variants`, from 0), and their distinct visitors: an A/B test’s result. Variants without clicks are left out. An addition to the spec.',
    ),
  },
  required: [
    'slug',
    'range',
    'totalClicks',
    'uniqueVisitors',
    'clicksOverTime',
    'referrers',
    'countries',
    'devices',
    'browsers',
    'triggers',
    'filtered',
    'byRule',
    'byVariant',
  ],
  additionalProperties: false,
} as const;

const proOnlyRanges = RANGES.filter((r) => !(PLANS.free.analyticsRanges as readonly string[]).includes(r));

export const ANALYTICS_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/links/:slug/analytics',
  schema: {
    operationId: 'getLinkAnalytics',
    summary: 'Click analytics of a link',
    description:
      'The click counts and breakdowns of one of your links over a range of days. Only clicks by people are counted: crawlers, link previews, HTTP libraries such as curl, `HEAD` requests and prefetches are redirected but not counted.',
    tags: [API_ROUTE_TAGS.analytics],
    security: API_KEY_SECURITY,
    params: slugParams,
    querystring: {
      type: 'object',
      properties: {
        domain: LINK_QUERYSTRING.properties.domain,
        range: {
          type: 'string',
          enum: RANGES,
          default: '7d',
          description: `The days counted, ending today (UTC). The free plan has ${PLANS.free.analyticsRanges.join(' and ')}.`,
        },
      },
    },
    response: {
      200: {
        description: 'The link’s analytics over the range.',
        ...analyticsSchema,
        examples: [
          {
            slug: 'summer',
            range: '7d',
            totalClicks: 3,
            uniqueVisitors: 2,
            clicksOverTime: [
              { date: '2026-11-15', clicks: 0 },
              { date: '2026-11-16', clicks: 0 },
              { date: '2026-11-17', clicks: 0 },
              { date: '2026-11-18', clicks: 0 },
              { date: '2026-11-19', clicks: 0 },
              { date: '2026-11-20', clicks: 1 },
              { date: '2026-11-21', clicks: 2 },
            ],
            referrers: [
              { name: 'Direct', count: 2 },
              { name: 'https://news.ycombinator.com', count: 1 },
            ],
            countries: [{ name: 'DE', count: 3 }],
            devices: [
              { name: 'desktop', count: 2 },
              { name: 'mobile', count: 1 },
            ],
            browsers: [
              { name: 'Chrome', count: 2 },
              { name: 'Safari', count: 1 },
            ],
            triggers: [
              { name: 'link', count: 2 },
              { name: 'qr', count: 1 },
            ],
            filtered: {
              total: 5,
              reasons: [
                { name: 'crawler', count: 3 },
                { name: 'http_library', count: 1 },
                { name: 'prefetch', count: 1 },
                { name: 'head', count: 0 },
                { name: 'no_user_agent', count: 0 },
              ],
              crawlers: [
                { name: 'slackbot', count: 2 },
                { name: 'googlebot', count: 1 },
              ],
            },
            byRule: [],
            byVariant: [
              { variant: 0, clicks: 2, uniqueVisitors: 1 },
              { variant: 1, clicks: 1, uniqueVisitors: 1 },
            ],
          },
        ],
      },
      400: errorResponse('`range` is not one of the ranges, or `domain` is no hostname.', {
        invalidRange: INVALID_RANGE,
        invalidDomain: INVALID_DOMAIN,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      403: errorResponse(
        'The account’s plan does not include this range.',
        Object.fromEntries(proOnlyRanges.map((r) => [`range${r}`, rangeNeedsPro(r)])),
      ),
      404: linkNotFound,
      503: linkUnavailable,
    },
  },
};

export const QR_CODE_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/links/:slug/qr',
  schema: {
    operationId: 'getLinkQrCode',
    summary: 'The QR code of a link',
    description: `An image of the QR code that opens the short URL. It encodes the short URL with \`?${QR_SCAN_PARAMETER}\`: the redirector takes that marker out before the query reaches the destination and counts the click as a scan (\`triggers\` in the analytics). Each parameter at most once; parameters it does not know are ignored.`,
    tags: [API_ROUTE_TAGS.links],
    security: API_KEY_SECURITY,
    params: slugParams,
    querystring: {
      type: 'object',
      properties: {
        domain: LINK_QUERYSTRING.properties.domain,
        format: { type: 'string', enum: ['svg', 'png'], default: 'svg', description: 'The image format.' },
        size: {
          type: 'integer',
          minimum: QR_LIMITS.minSize,
          maximum: QR_LIMITS.maxSize,
          default: QR_LIMITS.defaultSize,
          description: 'Width and height in pixels, the margin included.',
        },
        margin: {
          type: 'integer',
          minimum: 0,
          maximum: QR_LIMITS.maxMargin,
          default: QR_LIMITS.defaultMargin,
          description: 'The blank border, in modules (the code’s squares); readers want 4.',
        },
      },
    },
    response: {
      200: {
        description: 'The QR code, black on white, with error correction M (about 15 % may be damaged).',
        headers: {
          'Content-Disposition': {
            type: 'string',
            description: 'inline, with a file name to save it under: `{slug}-qr.svg` or `{slug}-qr.png`.',
          },
        },
        content: {
          'image/svg+xml': { schema: { type: 'string' } },
          'image/png': { schema: { type: 'string', format: 'binary' } },
        },
      },
      400: errorResponse('A parameter is not acceptable.', {
        invalidDomain: INVALID_DOMAIN,
        invalidFormat: INVALID_QR_FORMAT,
        invalidSize: INVALID_QR_SIZE,
        invalidMargin: INVALID_QR_MARGIN,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      404: linkNotFound,
      503: linkUnavailable,
    },
  },
};

const accountAnalyticsSchema = {
  type: 'object',
  properties: {
    range: { type: 'string', enum: RANGES },
    from: { type: 'string', format: 'date', description: 'The first UTC day counted.' },
    to: { type: 'string', format: 'date', description: 'The last UTC day counted.' },
    totalClicks: {
      type: 'integer',
      minimum: 0,
      description: 'Clicks on all the account’s links, deleted ones included.',
    },
    uniqueVisitors: {
      type: 'integer',
      minimum: 0,
      description: 'Distinct visitors over all the links, by hashed IP address: a visitor of two links counts once.',
    },
    groupBy: { type: 'string', enum: GROUP_BYS },
    rows: {
      type: 'array',
      description:
        'The groups with the most clicks, most first, ties by name; at most `limit`. Groups without clicks are not listed.',
      items: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            description:
              'The link’s slug, the tag, the value (a country code, referrer origin, device or browser family) or the UTC day (`YYYY-MM-DD`).',
          },
          linkId: { type: 'string', format: 'uuid', description: 'The link’s id; with `groupBy=link` only.' },
          clicks: { type: 'integer', minimum: 0 },
          uniqueVisitors: { type: 'integer', minimum: 0, description: 'Distinct visitors of the group’s clicks.' },
        },
        required: ['name', 'clicks', 'uniqueVisitors'],
        additionalProperties: false,
      },
    },
  },
  required: ['range', 'from', 'to', 'totalClicks', 'uniqueVisitors', 'groupBy', 'rows'],
  additionalProperties: false,
} as const;

export const ACCOUNT_ANALYTICS_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/analytics',
  schema: {
    operationId: 'getAccountAnalytics',
    summary: 'Click analytics of all your links',
    description:
      'The account’s clicks and distinct visitors over a range of days, and its top links, tags, countries, referrers, devices, browsers or days. The account is the API key’s. Counted as a link’s analytics are: clicks by people only. Each parameter at most once; parameters it does not know are ignored.',
    tags: [API_ROUTE_TAGS.analytics],
    security: API_KEY_SECURITY,
    querystring: {
      type: 'object',
      properties: {
        domain: LINK_QUERYSTRING.properties.domain,
        range: {
          type: 'string',
          enum: RANGES,
          default: '7d',
          description: `The days counted, ending today (UTC); \`all\` starts on the account’s first click. The free plan has ${PLANS.free.analyticsRanges.join(' and ')}.`,
        },
        groupBy: {
          type: 'string',
          enum: GROUP_BYS,
          default: ACCOUNT_LIMITS.defaultGroupBy,
          description:
            'What a row is: a link, a tag (the links that carry it now; links without a tag are in no row), a country, a referrer origin, a device, a browser family or a UTC day.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: ACCOUNT_LIMITS.maxLimit,
          default: ACCOUNT_LIMITS.defaultLimit,
          description: 'Rows at most.',
        },
      },
    },
    response: {
      200: {
        description: 'The account’s analytics over the range.',
        ...accountAnalyticsSchema,
        examples: [
          {
            range: '30d',
            from: '2026-10-23',
            to: '2026-11-21',
            totalClicks: 1250,
            uniqueVisitors: 870,
            groupBy: 'tag',
            rows: [
              { name: 'spring', clicks: 900, uniqueVisitors: 610 },
              { name: 'newsletter', clicks: 300, uniqueVisitors: 280 },
            ],
          },
        ],
      },
      400: errorResponse('A parameter is not acceptable.', {
        invalidRange: INVALID_RANGE,
        invalidGroupBy: INVALID_GROUP_BY,
        invalidLimit: INVALID_LIMIT,
        ...MALFORMED_REQUESTS,
      }),
      401: unauthorized,
      403: errorResponse(
        'The account’s plan does not include this range.',
        Object.fromEntries(proOnlyRanges.map((r) => [`range${r}`, rangeNeedsPro(r)])),
      ),
      503: storeUnavailable,
    },
  },
};

export const ACCOUNT_READ_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/account',
  schema: {
    operationId: 'getAccount',
    summary: 'The key’s account and what its plan allows',
    description:
      'Which account the key belongs to, its plan, and that plan’s limits, so a client can offer only what will be answered (the analytics ranges, the shortest custom slug) instead of learning it from a `403`. Requests per minute are in every answer’s `RateLimit-*` headers.',
    tags: [API_ROUTE_TAGS.account],
    security: API_KEY_SECURITY,
    response: {
      200: {
        description: 'The account of the key.',
        type: 'object',
        properties: {
          accountId: { type: 'string', format: 'uuid', description: 'The account’s identifier; it never changes.' },
          name: { type: 'string', description: 'The account’s name, as it was given when the account was made.' },
          plan: { type: 'string', enum: PLAN_NAMES },
          analyticsRanges: {
            type: 'array',
            items: { type: 'string', enum: RANGES },
            description: 'The `range` values the plan reads, in the order of `7d`, `30d`, `90d`, `all`.',
          },
          minCustomSlugLength: { type: 'integer', minimum: 1, description: 'The shortest custom slug the plan takes.' },
        },
        required: ['accountId', 'name', 'plan', 'analyticsRanges', 'minCustomSlugLength'],
        additionalProperties: false,
        examples: [
          {
            accountId: '5b0c6a7e-2f1d-4c1e-9a57-3f0f1f4c2d10',
            name: 'Acme',
            plan: 'free',
            analyticsRanges: PLANS.free.analyticsRanges,
            minCustomSlugLength: PLANS.free.minCustomSlugLength,
          },
        ],
      },
      400: errorResponse('The request could not be read.', MALFORMED_REQUESTS),
      401: unauthorized,
    },
  },
};

export const ANALYTICS_ROUTES: readonly ApiRoute[] = [
  LINK_LIST_ROUTE,
  LINK_READ_ROUTE,
  QR_CODE_ROUTE,
  ANALYTICS_ROUTE,
  ACCOUNT_ANALYTICS_ROUTE,
  ACCOUNT_READ_ROUTE,
  CLICK_EXPORT_ROUTE,
];

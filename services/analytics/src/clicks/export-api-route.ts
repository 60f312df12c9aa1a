import { UNAUTHORIZED } from '@shortlink/accounts';
import {
  API_KEY_SECURITY,
  API_ROUTE_TAGS,
  errorResponse,
  HTTP_ERRORS,
  MALFORMED_REQUESTS,
  RESPONSE_HEADERS,
  type ApiRoute,
} from '@shortlink/http';
import { INVALID_TAG_FILTER, LIST_LIMITS } from '../analytics-errors';
import {
  EXPORT_FORMATS,
  EXPORT_LIMITS,
  exportRangeNeedsPro,
  exportRateLimited,
  INVALID_EXPORT_CURSOR,
  INVALID_EXPORT_FORMAT,
  INVALID_EXPORT_LIMIT,
  INVALID_SLUG_FILTER,
  invalidTime,
} from './export-errors';

const EXAMPLE_ROW = {
  event_id: '7d1b6a52-3c1e-4f0a-9b7e-2f4c8d9e0a11',
  link_id: 'a028f707-5b7c-4d1e-8f3a-6c2b9e4d1f00',
  slug: 'launch',
  clicked_at: '2026-11-21T09:30:01.250Z',
  visitor_hash: '3f5c0e…(64 hex digits)',
  referrer: 'https://news.example.org',
  country: 'DE',
  device: 'desktop',
  browser: 'Chrome',
  os: 'Windows',
  trigger: 'link',
  cursor: 'a028f707-5b7c-4d1e-8f3a-6c2b9e4d1f00.1795253401250.7d1b6a52-3c1e-4f0a-9b7e-2f4c8d9e0a11',
};

const freeDays = EXPORT_LIMITS.daysBack.free ?? 0;

export const CLICK_EXPORT_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/api/v1/clicks/export',
  schema: {
    operationId: 'exportClicks',
    summary: 'Export the account’s raw clicks',
    description: `Every click of your links in \`[from, to)\`, one row each, streamed as it is read: ordered by \`link_id\`, then \`clicked_at\`, then \`event_id\`. Each row ends with a \`cursor\`; pass the last complete row’s as \`after\` to continue an export that was cut off. The free plan exports the last ${freeDays} days; ${EXPORT_LIMITS.perWindow.free} exports an hour on free, ${EXPORT_LIMITS.perWindow.pro} on Pro. \`visitor_hash\` is an HMAC of the visitor’s address under this installation’s secret: equal within the installation, never reversible to an address. Each parameter at most once; parameters it does not know are ignored. An addition to the spec; see docs/data-export.md.`,
    tags: [API_ROUTE_TAGS.analytics],
    security: API_KEY_SECURITY,
    querystring: {
      type: 'object',
      properties: {
        format: { type: 'string', enum: EXPORT_FORMATS, default: 'ndjson', description: 'The file format.' },
        from: {
          type: 'string',
          format: 'date-time',
          description: `RFC 3339; clicks at or after it. Default: the earliest the plan exports (free: the start of the UTC day ${freeDays - 1} days ago; Pro: every click).`,
        },
        to: { type: 'string', format: 'date-time', description: 'RFC 3339; clicks before it. Default: now.' },
        slug: { type: 'string', pattern: '^[a-z0-9-]{3,30}$', description: 'Only the clicks of this slug.' },
        tag: {
          type: 'string',
          minLength: 1,
          maxLength: LIST_LIMITS.tagMaxLength,
          description: 'Only the clicks of your live links with exactly this tag, however many.',
        },
        after: {
          type: 'string',
          description: 'The `cursor` of the last row you kept: the export continues strictly after it.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: EXPORT_LIMITS.maxLimit,
          description: 'At most this many rows (to export a long range as several files).',
        },
      },
    },
    response: {
      200: {
        description:
          'The clicks: NDJSON (one JSON object a line), CSV (a header row, then a row a click) or one Parquet file. `clicked_at` is RFC 3339 in UTC (a millisecond timestamp in Parquet).',
        headers: {
          'Content-Disposition': {
            type: 'string',
            description: 'attachment, named `clicks-{from}-{to}.{format}`.',
          },
        },
        content: {
          'application/x-ndjson': { schema: { type: 'string' }, example: `${JSON.stringify(EXAMPLE_ROW)}\n` },
          'text/csv; charset=utf-8': { schema: { type: 'string' } },
          'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
        },
      },
      400: errorResponse('A parameter is not acceptable.', {
        invalidFormat: INVALID_EXPORT_FORMAT,
        invalidFrom: invalidTime('from', 'from must be an RFC 3339 time such as 2026-11-01T00:00:00Z.'),
        invalidTo: invalidTime('to', 'to must be later than from.'),
        invalidCursor: INVALID_EXPORT_CURSOR,
        invalidLimit: INVALID_EXPORT_LIMIT,
        invalidSlug: INVALID_SLUG_FILTER,
        invalidTag: INVALID_TAG_FILTER,
        ...MALFORMED_REQUESTS,
      }),
      401: errorResponse(
        'No API key, or one that is malformed, unknown or revoked.',
        { unauthorized: UNAUTHORIZED },
        { 'WWW-Authenticate': RESPONSE_HEADERS.wwwAuthenticate },
      ),
      403: errorResponse('`from` is earlier than the plan exports.', { fromNeedsPro: exportRangeNeedsPro(freeDays) }),
      429: errorResponse(
        'Too many requests, or too many exports, for this key’s plan.',
        { rateLimited: HTTP_ERRORS.rateLimited, exportsLimited: exportRateLimited('free', 60) },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
      ),
      503: errorResponse(
        'A store is unreachable: try again.',
        { storeUnavailable: HTTP_ERRORS.unavailable },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter() },
      ),
    },
  },
};

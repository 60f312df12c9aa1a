/** A client-visible error: its status, its text (`error`) and its stable `code`. */
export interface HttpErrorText {
  status: number;
  error: string;
  code: string;
}

/**
 * Every error text the HTTP layer itself answers with, for every service.
 * Each service keeps its own domain errors beside its routes.
 */
export const HTTP_ERRORS = {
  invalidBody: { status: 400, error: 'Invalid request body', code: 'invalid_body' },
  invalidRequest: { status: 400, error: 'Invalid request', code: 'invalid_request' },
  malformedRequest: { status: 400, error: 'Malformed HTTP request', code: 'malformed_request' },
  badUrl: { status: 400, error: 'Malformed request URL', code: 'malformed_url' },
  notFound: { status: 404, error: 'Not found', code: 'not_found' },
  methodNotAllowed: { status: 405, error: 'Method Not Allowed', code: 'method_not_allowed' },
  requestTimeout: { status: 408, error: 'Request Timeout', code: 'request_timeout' },
  expectationFailed: { status: 417, error: 'Expectation Failed', code: 'expectation_failed' },
  bodyTooLarge: { status: 413, error: 'Request body too large', code: 'body_too_large' },
  contentCoded: {
    status: 415,
    error: 'Unsupported Content-Encoding: send the body uncompressed',
    code: 'unsupported_content_encoding',
  },
  mediaType: {
    status: 415,
    error: 'Unsupported Media Type: send the body as JSON with Content-Type: application/json',
    code: 'unsupported_media_type',
  },
  rateLimited: {
    status: 429,
    error: 'Too many requests: this API key is over its rate limit. Try again after Retry-After seconds.',
    code: 'rate_limit_exceeded',
  },
  headersTooLarge: { status: 431, error: 'Request Header Fields Too Large', code: 'headers_too_large' },
  internal: { status: 500, error: 'Internal server error', code: 'internal' },
  notReady: { status: 503, error: 'Not ready', code: 'not_ready' },
  unavailable: {
    status: 503,
    error: 'The service is temporarily unavailable. Try again in a moment.',
    code: 'temporarily_unavailable',
  },
} as const satisfies Record<string, HttpErrorText>;

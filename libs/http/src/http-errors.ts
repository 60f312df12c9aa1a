/**
 * A client-visible error: its status, its text (`error`), its stable `code`,
 * and the `detail` it carries when nothing more is known of the request.
 */
export interface HttpErrorText {
  status: number;
  error: string;
  code: string;
  detail: string;
}

/**
 * Every error text the HTTP layer itself answers with, for every service.
 * Each service keeps its own domain errors beside its routes.
 */
export const HTTP_ERRORS = {
  invalidBody: {
    status: 400,
    error: 'Invalid request body',
    code: 'invalid_body',
    detail: 'The body is not a JSON object the route takes.',
  },
  invalidRequest: {
    status: 400,
    error: 'Invalid request',
    code: 'invalid_request',
    detail: 'A path or query parameter breaks its rule.',
  },
  malformedRequest: {
    status: 400,
    error: 'Malformed HTTP request',
    code: 'malformed_request',
    detail: 'The request is not well-formed HTTP/1.x.',
  },
  badUrl: {
    status: 400,
    error: 'Malformed request URL',
    code: 'malformed_url',
    detail: 'The path holds a percent-escape that does not decode as UTF-8.',
  },
  notFound: {
    status: 404,
    error: 'Not found',
    code: 'not_found',
    detail: 'No route serves this path; the API reference is at /docs.',
  },
  methodNotAllowed: {
    status: 405,
    error: 'Method Not Allowed',
    code: 'method_not_allowed',
    detail: 'This path does not take this method; the Allow header lists those it takes.',
  },
  requestTimeout: {
    status: 408,
    error: 'Request Timeout',
    code: 'request_timeout',
    detail: 'The request did not arrive in full in time.',
  },
  expectationFailed: {
    status: 417,
    error: 'Expectation Failed',
    code: 'expectation_failed',
    detail: 'Only Expect: 100-continue is supported.',
  },
  bodyTooLarge: {
    status: 413,
    error: 'Request body too large',
    code: 'body_too_large',
    detail: 'The body is over the size this route takes.',
  },
  contentCoded: {
    status: 415,
    error: 'Unsupported Content-Encoding: send the body uncompressed',
    code: 'unsupported_content_encoding',
    detail: 'The body came with a Content-Encoding; only identity (none) is taken.',
  },
  mediaType: {
    status: 415,
    error: 'Unsupported Media Type: send the body as JSON with Content-Type: application/json',
    code: 'unsupported_media_type',
    detail: 'The body is not sent as application/json.',
  },
  rateLimited: {
    status: 429,
    error: 'Too many requests: this API key is over its rate limit. Try again after Retry-After seconds.',
    code: 'rate_limit_exceeded',
    detail: 'This API key made more requests than its plan allows in the current window.',
  },
  headersTooLarge: {
    status: 431,
    error: 'Request Header Fields Too Large',
    code: 'headers_too_large',
    detail: 'The header lines are over the size the server reads.',
  },
  internal: {
    status: 500,
    error: 'Internal server error',
    code: 'internal',
    detail: 'An unexpected error; the service logged it.',
  },
  overloaded: {
    status: 503,
    error: 'The service is over capacity. Try again after Retry-After seconds.',
    code: 'overloaded',
    detail: 'This instance has more requests in hand than it can answer in time.',
  },
  notReady: { status: 503, error: 'Not ready', code: 'not_ready', detail: 'The process is starting or draining.' },
  unavailable: {
    status: 503,
    error: 'The service is temporarily unavailable. Try again in a moment.',
    code: 'temporarily_unavailable',
    detail: 'A store this request needs did not answer in time.',
  },
} as const satisfies Record<string, HttpErrorText>;

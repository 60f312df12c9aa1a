/** The redirector's answers other than a redirect, as they go on the wire. */
export const REDIRECT_ERRORS = {
  notFound: { status: 404, body: '{"error":"Link not found","code":"not_found"}' },
  /**
   * The link could not be looked up (its store is unreachable). Never a 404:
   * the link may exist, and a client or cache must not remember it as gone.
   */
  lookupFailed: {
    status: 503,
    body: '{"error":"The link cannot be looked up right now. Try again in a moment.","code":"temporarily_unavailable"}',
    retryAfterSeconds: '1',
  },
} as const;

/** An answer other than a redirect, as it goes on the wire (prebuilt: the 404 path is hot under a scan). */
export interface RedirectError {
  status: number;
  body: string;
  headers: Readonly<Record<string, string>>;
}

const JSON_NO_STORE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** The redirector's answers other than a redirect. */
export const REDIRECT_ERRORS = {
  notFound: {
    status: 404,
    body: JSON.stringify({
      error: 'Link not found',
      code: 'not_found',
      detail: 'No link has this slug, or it was deleted.',
    }),
    headers: JSON_NO_STORE,
  },
  /**
   * The link could not be looked up (its store is unreachable). Never a 404:
   * the link may exist, and a client or cache must not remember it as gone.
   */
  lookupFailed: {
    status: 503,
    body: JSON.stringify({
      error: 'The link cannot be looked up right now. Try again in a moment.',
      code: 'temporarily_unavailable',
      detail: 'The link store did not answer and this redirector holds no copy of the link.',
    }),
    headers: { ...JSON_NO_STORE, 'retry-after': '1' },
  },
} as const satisfies Record<string, RedirectError>;

/** The HTTP layer's limits on what one client may hold open. */
export const HTTP_LIMITS = {
  /** Request line and headers must arrive within this. */
  headersTimeoutMs: 10_000,
  /** The whole request, body included, must arrive within this; else 408. */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: 72_000,
  /** Longest path segment routed (a slug parameter); the URL is also bounded by Node's 16 KiB header limit. */
  maxPathSegmentLength: 16 * 1024,
} as const;

export type HttpLimits = { [K in keyof typeof HTTP_LIMITS]: number };

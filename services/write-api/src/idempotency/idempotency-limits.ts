/** How long Idempotency-Key records live and wait; documented in docs/integrators.md. */
export const IDEMPOTENCY = {
  /** A key returns its first response for 24 hours. */
  retentionMs: 24 * 60 * 60_000,
  /** A request at work for longer is taken for dead (its process crashed): a create answers within ~5 s. */
  leaseMs: 60_000,
  /** How long a retry waits for the request holding its key before answering 409. */
  waitMs: 10_000,
} as const;

/** The bounds of the webhooks API; documented in docs/webhooks.md. */
export const WEBHOOK_LIMITS = {
  /** Webhooks one account may have at once. */
  perAccount: 20,
  urlMaxLength: 2048,
  descriptionMaxLength: 200,
  /** A page of webhooks or of delivery attempts. */
  defaultPageSize: 20,
  maxPageSize: 100,
  /** How long delivery attempts are listed (and kept). */
  attemptsKeptDays: 7,
  /** How long the secret before a rotation keeps signing beside the new one. */
  previousSecretHours: 24,
} as const;

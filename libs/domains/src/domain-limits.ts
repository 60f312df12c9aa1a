/** Limits of the domains API (docs/domains.md). */
export const DOMAIN_LIMITS = {
  /** Domains, pending and verified, one account may hold: a claim costs a row and a DNS lookup per verify. */
  perAccount: 100,
  /** RFC 1035: a name of at most 253 characters written without its trailing dot, labels of at most 63. */
  hostnameMaxLength: 253,
  labelMaxLength: 63,
  /** A redirect URL, as a link's destination. */
  redirectUrlMaxLength: 2048,
} as const;

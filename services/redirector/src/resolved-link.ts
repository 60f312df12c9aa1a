/** What the redirector needs to answer, and later to record a click. */
export interface ResolvedLink {
  slug: string;
  linkId: string;
  accountId: string;
  /** The destination, normalised into a valid Location header value. */
  location: string;
}

/** Looks a slug up in the store: its link, or null when there is none. */
export type LookupLink = (slug: string) => Promise<ResolvedLink | null>;

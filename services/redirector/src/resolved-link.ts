import type { CompiledRouting } from '@shortlink/redirect-rules';

/** What the redirector needs to answer, and later to record a click. */
export interface ResolvedLink {
  slug: string;
  linkId: string;
  accountId: string;
  /** The destination, normalised into a valid Location header value. */
  location: string;
  /** Its rules and variants, compiled; absent for a link without any (almost every link), which then costs nothing. */
  routing?: CompiledRouting;
}

/** Looks a slug up in the store: its link, or null when there is none. */
export type LookupLink = (slug: string) => Promise<ResolvedLink | null>;

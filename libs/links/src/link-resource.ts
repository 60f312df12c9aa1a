import type { LinkRule, Variant, LinkRouting } from '@shortlink/events';

/** The Link object of the API contract (spec 2.1), as every endpoint that returns a link shows it. */
export interface LinkResource {
  id: string;
  slug: string;
  shortUrl: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: string;
  /** When the link last changed; equal to `createdAt` until its first change. */
  updatedAt: string;
  /** Its redirect rules, in order: always present, `[]` when none. */
  rules: LinkRule[];
  /** Its weighted destinations: always present, null when none. */
  variants: Variant[] | null;
}

export interface LinkFacts {
  linkId: string;
  slug: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
  /** Absent or null: never changed. */
  updatedAt?: Date | null;
  /** Absent or null: no rules and no variants. */
  routing?: LinkRouting | null;
}

/** The one place a Link object is built: `shortUrl` from the public base URL, `createdAt` ISO 8601 UTC with milliseconds. */
export function linkResource(link: LinkFacts, publicBaseUrl: string): LinkResource {
  return {
    id: link.linkId,
    slug: link.slug,
    shortUrl: `${publicBaseUrl}/${link.slug}`,
    destinationUrl: link.destinationUrl,
    tag: link.tag,
    createdAt: link.createdAt.toISOString(),
    updatedAt: (link.updatedAt ?? link.createdAt).toISOString(),
    rules: link.routing?.rules ?? [],
    variants: link.routing?.variants ?? null,
  };
}

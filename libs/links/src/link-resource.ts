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
  /** The branded domain it is on; null: the installation's own. */
  domain: string | null;
}

export interface LinkFacts {
  linkId: string;
  slug: string;
  /** Absent or null: the installation's own domain. */
  domain?: string | null;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
  /** Absent or null: never changed. */
  updatedAt?: Date | null;
  /** Absent or null: no rules and no variants. */
  routing?: LinkRouting | null;
}

/**
 * The one place a Link object is built: `shortUrl` from the public base URL (its scheme, and its host unless the link
 * is on a branded domain), `createdAt` ISO 8601 UTC with milliseconds.
 */
export function linkResource(link: LinkFacts, publicBaseUrl: string): LinkResource {
  const domain = link.domain ?? null;
  return {
    id: link.linkId,
    slug: link.slug,
    shortUrl: domain === null ? `${publicBaseUrl}/${link.slug}` : `${schemeOf(publicBaseUrl)}//${domain}/${link.slug}`,
    destinationUrl: link.destinationUrl,
    tag: link.tag,
    createdAt: link.createdAt.toISOString(),
    updatedAt: (link.updatedAt ?? link.createdAt).toISOString(),
    rules: link.routing?.rules ?? [],
    variants: link.routing?.variants ?? null,
    domain,
  };
}

/** `https:` from `https://sho.rt`: a branded domain is served as the installation is (TLS at the proxy, docs/tls.md). */
const schemeOf = (publicBaseUrl: string): string => publicBaseUrl.slice(0, publicBaseUrl.indexOf('//'));

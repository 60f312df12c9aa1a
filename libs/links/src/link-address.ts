import { normaliseHostname } from '@shortlink/domains';
import { linkKey, SLUG_PATTERN } from '@shortlink/events';
import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { INVALID_DOMAIN, linkNotFound } from './link-errors';

/**
 * How a request names a link: its slug, and `?domain=` when the link is on a branded domain (as Shlink names a short
 * URL). A slug is unique per domain, so the two together are the link (`linkKey`).
 */
export const LINK_QUERYSTRING = {
  type: 'object',
  properties: {
    domain: {
      type: 'string',
      description:
        'The branded domain the link is on (docs/domains.md), in any case, with or without a trailing dot. Leave it out for a link on the installation’s own domain.',
    },
  },
} as const;

/**
 * A link's domain as a create body or a query gives it, in stored form: null for none, for the installation's own
 * host (`ownHostname`, as `ownHostnameOf` gives it), or an error. Whether the account has verified it is the store's
 * to say. Pure.
 */
export function linkDomainOf(
  domain: unknown,
  ownHostname: string,
): { ok: true; domain: string | null } | { ok: false; error: HttpError } {
  if (domain === undefined || domain === null) return { ok: true, domain: null };
  if (typeof domain !== 'string') {
    return {
      ok: false,
      error: INVALID_DOMAIN.withDetail(`domain must be a hostname; received ${kindOf(domain)}.`, 'domain'),
    };
  }
  const normalised = normaliseHostname(domain);
  if (normalised.ok) return { ok: true, domain: normalised.hostname === ownHostname ? null : normalised.hostname };
  if (domain.replace(/\.$/, '').toLowerCase() === ownHostname) return { ok: true, domain: null };
  return {
    ok: false,
    error: INVALID_DOMAIN.withDetail(
      `domain ${excerpt(domain)} is no hostname: ${normalised.error.explained.detail}`,
      'domain',
    ),
  };
}

/** The key of the link a request names, or the error that answers it: a path segment that is no slug names no link. */
export function linkKeyOf(slug: string, query: unknown, ownHostname: string): string {
  if (!SLUG_PATTERN.test(slug)) throw linkNotFound(slug);
  const domain = linkDomainOf((query as { domain?: unknown } | undefined)?.domain, ownHostname);
  if (!domain.ok) throw domain.error;
  return linkKey(domain.domain, slug);
}

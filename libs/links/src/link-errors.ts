import { excerpt, HttpError } from '@shortlink/http';

/** An unknown slug, a deleted link and another account's link alike: existence does not leak. */
export const LINK_NOT_FOUND = new HttpError(404, 'Link not found', 'not_found', {
  detail: 'This account has no link with this slug (or it was deleted).',
});

/** The 404 of a slug, naming it. */
export const linkNotFound = (slug: string): HttpError =>
  LINK_NOT_FOUND.withDetail(`This account has no link ${excerpt(slug)} (or it was deleted).`);

/**
 * The owner's link whose create is not settled: its claim is still pending
 * and the link projector has not seen it. Its `201` may have gone out while
 * the claim's commit waited on Postgres (the projector commits it from the
 * topic), or its create failed in a way nobody can tell yet (the claim
 * settler decides within about a minute and a half). Neither is "not found".
 */
export const LINK_NOT_SETTLED = new HttpError(
  503,
  'This link’s creation is not confirmed yet. Try again in a moment.',
  'temporarily_unavailable',
  { detail: 'The link was created moments ago and its create is still being confirmed.' },
  { 'Retry-After': '2' },
);

/**
 * A link's `domain` (a create's body, or `?domain=` naming a link) that is no hostname, or no verified domain of the
 * account: one text for both, its `detail` saying which.
 */
export const INVALID_DOMAIN = new HttpError(400, 'The domain must be one of your verified domains', 'invalid_domain', {
  detail:
    'domain is not a hostname this account has verified (docs/domains.md); leave it out for the installation’s own.',
  field: 'domain',
});

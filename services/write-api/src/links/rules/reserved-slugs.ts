/**
 * Slugs that can never be links: every top-level path the service serves or may
 * serve, and the names browsers, crawlers and people expect at a site's root.
 * A slug equal to one of these is refused with `400 This slug is reserved`.
 * This file is the one list; the docs link here.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  // Paths this service serves.
  'api',
  'healthz',
  'metrics',
  'readyz',
  'livez',
  'dashboard',
  // Product and account pages a short-link product has or will have.
  'admin',
  'app',
  'docs',
  'help',
  'login',
  'logout',
  'signin',
  'signout',
  'signup',
  'register',
  'account',
  'accounts',
  'settings',
  'billing',
  'pricing',
  'support',
  'status',
  'about',
  'terms',
  'privacy',
  'legal',
  'security',
  'blog',
  'links',
  'link',
  'new',
  'auth',
  'oauth',
  'sso',
  'callback',
  'webhook',
  'webhooks',
  // Assets and well-known files.
  'static',
  'assets',
  'public',
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
  'humans.txt',
  'security.txt',
  'ads.txt',
  'manifest.json',
  'apple-touch-icon.png',
  '.well-known',
  'www',
  'cdn',
]);

export function isReservedSlug(slug: string): boolean {
  return RESERVED_SLUGS.has(slug);
}

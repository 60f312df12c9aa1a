/**
 * Reduces a Referer header to its origin: `Direct` when empty or unparsable;
 * `scheme://host` for schemes without an origin (`android-app://com.slack`);
 * never the string `null`.
 */
export function referrerOrigin(referer: string | undefined): string {
  const value = referer?.trim();
  if (!value) return 'Direct';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Direct';
  }
  if (url.origin !== 'null') return url.origin;
  if (url.host) return `${url.protocol}//${url.host}`;
  return 'Direct';
}

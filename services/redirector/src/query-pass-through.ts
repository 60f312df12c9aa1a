/**
 * A query on the short URL is merged into the destination's (as Dub and Shlink do): the destination's parameters stay
 * in order and spelling except those the request names, which take the request's values (every one); the request's
 * follow, in its order. Keys compare decoded; the fragment stays. The result goes through the WHATWG URL parser, so no
 * request can put anything but a query into the Location header; a request without a query gets the cached string
 * (docs/decisions/0056-redirect-query-pass-through.md).
 */
export function passQueryThrough(location: string, requestUrl: string): string {
  const mark = requestUrl.indexOf('?');
  if (mark === -1 || mark === requestUrl.length - 1) return location;
  // A `?` after a `#` is in the fragment (RFC 3986 3.5), as the router reads the path: there is no query.
  const fragmentMark = requestUrl.indexOf('#');
  if (fragmentMark !== -1 && fragmentMark < mark) return location;
  // A `#` the client sent is data here; as it is it would cut the query and replace the destination's fragment.
  const given = requestUrl
    .slice(mark + 1)
    .split('&')
    .filter((p) => p !== '')
    .map((p) => (p.includes('#') ? p.replaceAll('#', '%23') : p));
  if (given.length === 0) return location;

  const hash = location.indexOf('#');
  const fragment = hash === -1 ? '' : location.slice(hash);
  const beforeFragment = hash === -1 ? location : location.slice(0, hash);
  const queryStart = beforeFragment.indexOf('?');
  const target = queryStart === -1 ? beforeFragment : beforeFragment.slice(0, queryStart);
  const own = queryStart === -1 ? '' : beforeFragment.slice(queryStart + 1);

  const replaced = new Set(given.map(keyOf));
  // The destination's own spelling, empty parameters (`a=1&&b=2`) included.
  const kept = own === '' ? [] : own.split('&').filter((p) => p === '' || !replaced.has(keyOf(p)));
  try {
    return new URL(`${target}?${[...kept, ...given].join('&')}${fragment}`).href;
  } catch {
    // Cannot happen for a valid location (only the query changed); never worth a 5xx.
    return location;
  }
}

/** A parameter's key as `application/x-www-form-urlencoded` reads it. */
export function keyOf(parameter: string): string {
  const eq = parameter.indexOf('=');
  const raw = eq === -1 ? parameter : parameter.slice(0, eq);
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  // As a form decoder reads it, escape by escape: one that does not decode
  // (`%zz`) stays as it is without keeping the others from being decoded, and
  // bytes that are not UTF-8 are U+FFFD, as the destination's server will read them.
  return new URLSearchParams(raw).keys().next().value ?? raw;
}

/**
 * A query on the short URL is passed on to the destination (`/abc?utm_source=x`),
 * merged into the destination's own query as Dub and Shlink do: the
 * destination's parameters stay, in their order and spelling, except those the
 * request names, which the request's values replace (all of them: a key the
 * request gives twice arrives twice). The request's parameters follow, in its
 * order. Keys are compared decoded (`utm%5Fsource` is `utm_source`, `+` a space).
 * The fragment of the destination is kept.
 *
 * `location` is the link's cached WHATWG form; the result is one again (the
 * merged URL goes through the URL parser, which drops tabs and line breaks and
 * percent-encodes what a header or a query cannot hold), so no request can
 * put anything into the Location header but a query. A request without a query
 * costs one `indexOf` and gets the cached string itself.
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

import { domainToASCII } from 'node:url';

/** What a stored hostname is made of (normaliseHostname's output): the common case needs no more work. */
const STORED_FORM = /^[a-z0-9.-]{1,253}$/;

/**
 * The hostname a request's `Host` names, in the form domains are stored in (ASCII, lower case, no port, no trailing
 * dot), so that `Go.Example.com.:443` finds `go.example.com`. Null for no `Host`, an IP literal in brackets, or a
 * name WHATWG URL's domain-to-ASCII refuses: none of those can be a verified domain. `Host` is the visitor's text:
 * every step is linear in it, and a long one is refused before any work.
 */
export function requestHostname(host: string | undefined): string | null {
  if (host === undefined || host.length === 0 || host.length > 260 || host.charCodeAt(0) === 0x5b /* [ */) {
    return null;
  }
  const colon = host.lastIndexOf(':');
  let name = colon === -1 ? host : host.slice(0, colon);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (STORED_FORM.test(name)) return name;
  // Capitals, or a Unicode name as a client that does not send punycode would: what the URL parser would make of it.
  const ascii = domainToASCII(name);
  return ascii.length > 0 && STORED_FORM.test(ascii) ? ascii : null;
}

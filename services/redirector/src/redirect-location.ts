/**
 * The Location header of a redirect: the destination in the form the WHATWG
 * URL Standard serialises it, which is what every browser follows. Sending the
 * URL as submitted would let parsers disagree about where it goes
 * (`https://example.com\@evil.example/` is `example.com` to a browser and
 * `evil.example` to others); the serialised form has one reading, and is
 * printable ASCII as a header must be (spaces and non-ASCII percent-encoded,
 * the host in punycode). Null when the destination is no URL at all.
 */
export function redirectLocation(destinationUrl: string): string | null {
  try {
    return new URL(destinationUrl).href;
  } catch {
    return null;
  }
}

/**
 * The Location header of a redirect: the destination as the WHATWG URL Standard serialises it, which every browser
 * follows. The URL as submitted could be read differently by different parsers (`https://example.com\@evil.example/`);
 * the serialised form has one reading and is printable ASCII as a header must be (non-ASCII percent-encoded, the host
 * in punycode). Null when the destination is no URL at all (docs/decisions/0056-redirect-query-pass-through.md).
 */
export function redirectLocation(destinationUrl: string): string | null {
  try {
    return new URL(destinationUrl).href;
  } catch {
    return null;
  }
}

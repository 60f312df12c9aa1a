/**
 * Whether a request body is sent in a content coding (RFC 9110 8.4): `gzip`,
 * `br`, `deflate`, anything but `identity`. The API reads bodies as they
 * are, so such a body is refused (415) rather than read as if it were not
 * coded: a gzip body was "Invalid request body", and a plain one labelled
 * `gzip` was taken, each for the wrong reason.
 */
export function isContentCoded(contentEncoding: string | undefined): boolean {
  if (contentEncoding === undefined) return false;
  return contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .some((coding) => coding !== '' && coding !== 'identity');
}

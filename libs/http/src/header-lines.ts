/**
 * How many lines of one header a request has. Node keeps only the first of
 * some headers sent twice (Host, Authorization, …), so two of them cannot be
 * seen in `headers`. A loop over the header names with no string made unless
 * one has the name's length: cheap enough for every request.
 */
export function headerLines(rawHeaders: readonly string[], lowerCaseName: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) n++;
  }
  return n;
}

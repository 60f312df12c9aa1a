/**
 * How a scan of a link's QR code is told from a click: the code encodes the short URL with this query parameter
 * (`https://sho.rt/summer?qr=1`, as Dub marks its codes), the redirector recognises it, takes it out before the
 * request's query is passed on to the destination, and records the click's trigger as `qr`. A destination's own
 * `qr=1` therefore never comes from a short URL's query; any other `qr` value is passed on as it is.
 */
export const QR_SCAN_PARAMETER = 'qr=1';

/** The URL a link's QR code encodes. */
export function qrScanUrl(shortUrl: string): string {
  return `${shortUrl}?${QR_SCAN_PARAMETER}`;
}

/**
 * A request's URL without the QR marker, and whether it had it (a scan). Only an exact `qr=1` parameter is the marker (in any
 * position, each occurrence removed); a URL without a query is returned as it is, at no cost.
 */
export function takeQrScanMarker(requestUrl: string): { url: string; scanned: boolean } {
  const mark = requestUrl.indexOf('?');
  if (mark === -1 || !requestUrl.includes(QR_SCAN_PARAMETER, mark)) return { url: requestUrl, scanned: false };
  // A `?` after a `#` is in the fragment, as the redirector reads the path: there is no query.
  const hash = requestUrl.indexOf('#');
  if (hash !== -1 && hash < mark) return { url: requestUrl, scanned: false };
  const query = requestUrl.slice(mark + 1, hash === -1 ? undefined : hash);
  const parameters = query.split('&');
  const kept = parameters.filter((p) => p !== QR_SCAN_PARAMETER);
  if (kept.length === parameters.length) return { url: requestUrl, scanned: false };
  const rest = hash === -1 ? '' : requestUrl.slice(hash);
  const path = requestUrl.slice(0, mark);
  return { url: kept.length === 0 ? path + rest : `${path}?${kept.join('&')}${rest}`, scanned: true };
}

/**
 * "Try it out" on the reference page, for the one operation that redirects:
 * a page's fetch follows a redirect, and a short link's leads to another
 * origin that answers the page without CORS, so the browser shows a CORS
 * error. The page asks fetch not to follow (the API itself never redirects),
 * and, since the Fetch standard hides a redirect's status and Location from
 * a page, shows what happened in words. These functions run in the browser:
 * Swagger UI's initializer script is written from their source, so they use
 * nothing outside themselves.
 */
interface TryItOutRequest {
  redirect?: string;
}
interface TryItOutResponse {
  ok: boolean;
  status: number;
  statusText: string;
  text?: string;
  data?: string;
  body?: unknown;
}

export const requestInterceptor = (request: TryItOutRequest): TryItOutRequest => {
  request.redirect = 'manual';
  return request;
};

export const responseInterceptor = (response: TryItOutResponse): TryItOutResponse => {
  // A redirect not followed reaches the page as an "opaque redirect": status 0, nothing readable.
  if (response.status !== 0) return response;
  const note =
    'A redirect (302 Found). A browser does not let a page read its Location: open the short URL in a tab, or run `curl -i` on it.';
  response.ok = true;
  response.status = 302;
  response.statusText = 'Found';
  response.text = note;
  response.data = note;
  response.body = note;
  return response;
};

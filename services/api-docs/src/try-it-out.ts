/**
 * "Try it out" for the one operation that redirects: a followed short link
 * lands on another origin and shows as a CORS error, so the page's fetch does
 * not follow, and says in words what the Fetch standard hides (the 302 and its
 * Location). These run in the browser, written into Swagger UI's initializer
 * script from their source, so they use nothing outside themselves.
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

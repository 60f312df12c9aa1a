import type { Pool as HttpPool } from 'undici';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** One API request of a checker: an account's key, a method and path, a JSON body and maybe an Idempotency-Key. */
export type ApiCall = (
  key: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  idempotencyKey?: string,
) => Promise<ApiAnswer>;

/**
 * Calls the API through the fleet's entry point as an integrator does, over one keep-alive pool. A request that gets no
 * answer within 10 s throws (undici's error), so each caller decides whether it asks again.
 */
export function apiCaller(http: HttpPool, userAgent?: string): ApiCall {
  return async (key, method, path, body, idempotencyKey) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (userAgent !== undefined) headers['user-agent'] = userAgent;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await http.request({
      method,
      path,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };
}

/** An answer of the API that was not a success: its status and the error body every error carries. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly detail: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  detail?: unknown;
  field?: unknown;
}

const text = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/** Calls the public API on this origin with the key, as any integrator does. */
export async function api<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The service did not answer', 'network', 'Check the connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  const parsed = (await res.json().catch(() => ({}))) as unknown;
  if (!res.ok) {
    const e = (parsed ?? {}) as ErrorBody;
    throw new ApiError(
      res.status,
      text(e.error, `The service answered ${res.status}`),
      text(e.code, 'unknown'),
      text(e.detail, ''),
      typeof e.field === 'string' ? e.field : undefined,
    );
  }
  return parsed as T;
}

export interface Link {
  id: string;
  slug: string;
  shortUrl: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: string;
}

export interface LinkPage {
  links: Link[];
  nextCursor: string | null;
}

export interface Analytics {
  totalClicks: number;
}

/** A group of the account's clicks (`GET /api/v1/analytics`): a link's slug, a tag, a value or a day. */
export interface AccountRow {
  name: string;
  linkId?: string;
  clicks: number;
  uniqueVisitors: number;
}

export interface AccountAnalytics {
  range: string;
  from: string;
  to: string;
  totalClicks: number;
  uniqueVisitors: number;
  groupBy: string;
  rows: AccountRow[];
}

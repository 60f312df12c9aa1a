/** An answer of the API that was not a success: its status and the error body every error carries. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly detail: string,
    readonly field?: string,
    /** `Retry-After` of a `429` or `503`, in seconds. */
    readonly retryAfter?: number,
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

/** Where the key's rate limit stood at the last answer (its `RateLimit-*` headers), for pacing repeated reads. */
export const rateLimit = { remaining: Number.POSITIVE_INFINITY, resetSeconds: 0 };

function noteRateLimit(res: Response): void {
  const remaining = Number.parseInt(res.headers.get('ratelimit-remaining') ?? '', 10);
  const reset = Number.parseInt(res.headers.get('ratelimit-reset') ?? '', 10);
  if (Number.isFinite(remaining)) rateLimit.remaining = remaining;
  if (Number.isFinite(reset)) rateLimit.resetSeconds = reset;
}

/** Calls the public API on this origin with the key, as any integrator does. */
export async function api<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(key, method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json().catch(() => ({}))) as T;
}

/** A file the API draws (a QR code), read with the key: a page cannot send the header from an `<img>`. */
export async function apiBlob(key: string, path: string): Promise<Blob> {
  return (await send(key, 'GET', path)).blob();
}

/** Sends a request; answers a success, throws the API's error as an ApiError. */
async function send(key: string, method: string, path: string, body?: unknown): Promise<Response> {
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
  noteRateLimit(res);
  if (res.ok) return res;
  const e = ((await res.json().catch(() => ({}))) ?? {}) as ErrorBody;
  const retryAfter = Number.parseInt(res.headers.get('retry-after') ?? '', 10);
  throw new ApiError(
    res.status,
    text(e.error, `The service answered ${res.status}`),
    text(e.code, 'unknown'),
    text(e.detail, ''),
    typeof e.field === 'string' ? e.field : undefined,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

export interface Link {
  id: string;
  slug: string;
  /** Its branded domain; null: the installation's own. A slug is unique per domain. */
  domain: string | null;
  shortUrl: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: string;
}

/** What names a link: its slug, and its domain when it is on one. */
export type LinkName = Pick<Link, 'slug' | 'domain'>;

/** How the dashboard names a link: its slug, after its domain when it is on one (`go.example.com/sale`). */
export const nameOf = (link: LinkName): string => (link.domain ? `${link.domain}/${link.slug}` : link.slug);

/**
 * A link's API path, `/api/v1/links/<slug>` and what follows (`/analytics`), with `?domain=` for a link on a
 * branded domain before the other parameters: the same slug on two domains is two links.
 */
export function linkPath(link: LinkName, rest = '', params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...(link.domain ? { domain: link.domain } : {}), ...params }).toString();
  return `/api/v1/links/${encodeURIComponent(link.slug)}${rest}${query ? `?${query}` : ''}`;
}

export interface LinkPage {
  links: Link[];
  nextCursor: string | null;
}

export interface Preview {
  status: 'pending' | 'ready' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  fetchedAt: string | null;
}

/** `GET /api/v1/links/:slug`: the link and what its destination says about itself. */
export interface LinkWithPreview extends Link {
  preview: Preview;
}

export const RANGES = ['7d', '30d', '90d', 'all'] as const;
export type Range = (typeof RANGES)[number];

export interface Bucket {
  name: string;
  count: number;
}

export interface Analytics {
  slug: string;
  range: Range;
  totalClicks: number;
  uniqueVisitors: number;
  clicksOverTime: { date: string; clicks: number }[];
  referrers: Bucket[];
  countries: Bucket[];
  devices: Bucket[];
  browsers: Bucket[];
  triggers: Bucket[];
  /** Redirects answered but not counted as clicks, by reason and crawler family (docs/filtered-redirects.md). */
  filtered: { total: number; reasons: Bucket[]; crawlers: Bucket[] };
}

/** `GET /api/v1/account`: the key's account and what its plan allows. */
export interface Account {
  accountId: string;
  name: string;
  plan: string;
  analyticsRanges: string[];
  minCustomSlugLength: number;
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

import type { Pool } from 'undici';
import { newApiAnswers, noteAnswer, type ApiAnswers } from './api-answers';
import { CHECKER_AGENT } from './browser-agents';

/**
 * A link the traffic changes, one change at a time: what it must read as
 * afterwards. Only one change of a link is ever in flight, so once one is
 * answered 200 nothing else can move it, and the next read anywhere must
 * show it (docs/decisions/0035-redirector-leases.md).
 */
export interface ChangedLink {
  slug: string;
  /** The destination of the last change answered 200 (the create's, until one is). */
  acknowledged: string;
  /**
   * Destinations sent since that got no definite answer (a 5xx, none at all):
   * the change may have been saved, or not. A 503 after the save ("its event
   * follows once the log answers") is one of them too.
   */
  uncertain: string[];
  /** Changes sent so far (names each new destination). */
  n: number;
  inFlight: boolean;
}

/** What one phase's link changes (`PATCH /api/v1/links/:slug`) got back. */
export interface ChangeTally extends ApiAnswers {
  /** Due while every link had a change in flight, or none had been created yet this phase. */
  noLinkFree: number;
  /** A 4xx for a change of the traffic's own, existing link: must stay 0. */
  refused: number;
  /** After a 200: the next redirect through the entry point, and the link's read, went elsewhere. Must stay 0. */
  staleRedirectsAfterAck: number;
  staleReadsAfterAck: number;
  /** After a 200: the redirect or the read got no answer or a 5xx (a fault under way); not a violation. */
  unreadAfterAck: number;
  /** Every link changed in this phase, by slug. */
  links: Map<string, ChangedLink>;
}

export const newChangeTally = (): ChangeTally => ({
  ...newApiAnswers(),
  noLinkFree: 0,
  refused: 0,
  staleRedirectsAfterAck: 0,
  staleReadsAfterAck: 0,
  unreadAfterAck: 0,
  links: new Map(),
});

export interface ChangeRequests {
  /** The API's connections (PATCH and the read), and the redirects' (the read-back redirect). */
  api: Pool;
  redirects: Pool;
  apiKey: string;
  timeoutMs: number;
}

/**
 * Changes `link`'s destination once and, if the change is answered 200, reads
 * it back at once through the entry point: its redirect (as a checker, never
 * counted) and `GET /api/v1/links/:slug`. The caller marks the link in flight.
 */
export async function changeLink(http: ChangeRequests, tally: ChangeTally, link: ChangedLink): Promise<void> {
  tally.sent++;
  const url = `https://example.com/chaos-changed/${link.slug}/${++link.n}`;
  const started = performance.now();
  const auth = { authorization: `Bearer ${http.apiKey}` };
  const timeouts = { headersTimeout: http.timeoutMs, bodyTimeout: http.timeoutMs };
  let status: number | null = null;
  try {
    const res = await http.api.request({
      method: 'PATCH',
      path: `/api/v1/links/${link.slug}`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
      ...timeouts,
    });
    await res.body.dump();
    status = res.statusCode;
    noteAnswer(tally, started, res);
  } catch (err) {
    noteAnswer(tally, started, { error: err });
  }

  if (status === 200) {
    link.acknowledged = url;
    link.uncertain = [];
    await readBack(http, tally, link.slug, url, auth, timeouts);
  } else if (status !== null && status >= 400 && status < 500) {
    // Refused: nothing changed. Not expected for a link of our own, whatever the fault.
    tally.refused++;
  } else {
    link.uncertain.push(url);
  }
}

async function readBack(
  http: ChangeRequests,
  tally: ChangeTally,
  slug: string,
  url: string,
  auth: Record<string, string>,
  timeouts: { headersTimeout: number; bodyTimeout: number },
): Promise<void> {
  const [redirect, read] = await Promise.all([
    http.redirects
      .request({ method: 'GET', path: `/${slug}`, headers: { 'user-agent': CHECKER_AGENT }, ...timeouts })
      .then(async (res) => {
        await res.body.dump();
        return { status: res.statusCode, destination: res.headers.location };
      })
      .catch(() => null),
    http.api
      .request({ method: 'GET', path: `/api/v1/links/${slug}`, headers: auth, ...timeouts })
      .then(async (res) => {
        const text = await res.body.text();
        return { status: res.statusCode, destination: destinationOf(text) };
      })
      .catch(() => null),
  ]);
  for (const [answer, stale] of [
    [redirect, 'staleRedirectsAfterAck'],
    [read, 'staleReadsAfterAck'],
  ] as const) {
    if (answer === null || answer.status >= 500) tally.unreadAfterAck++;
    else if (answer.destination !== url) tally[stale]++;
  }
}

function destinationOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { destinationUrl?: unknown };
    return typeof parsed.destinationUrl === 'string' ? parsed.destinationUrl : undefined;
  } catch {
    return undefined;
  }
}

/** A destination the link may show after the run: its last acknowledged one, or one sent later without a definite answer. */
export function mayShow(link: ChangedLink, destination: string | null | undefined): boolean {
  return destination === link.acknowledged || link.uncertain.includes(destination ?? '');
}

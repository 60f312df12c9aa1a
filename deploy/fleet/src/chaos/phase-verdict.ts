import type { ChangeTally } from './change-traffic';
import type { CreateTally, RedirectTally } from './traffic';
import { judgeWebhooks, type WebhookEvidence, type WebhookFigures } from './webhook-verdict';

/** What was seen of one fault, from the outside: the traffic's tallies and what ClickHouse holds. */
export interface PhaseEvidence {
  fault: string;
  notes: Record<string, number | string>;
  redirects: Omit<RedirectTally, 'latenciesMs' | 'bySlug' | 'timeline' | 'startedAt'> & { p99Ms: number };
  /** The freshness probe's own redirects (counted clicks as well). */
  probeRedirects: number;
  creates: Omit<CreateTally, 'acknowledged'> & { acknowledged: number };
  /**
   * Acknowledged creates of this phase that redirect to their URL through the
   * entry point afterwards (a changed one: to its last acknowledged change).
   */
  acknowledgedRedirecting: number;
  /**
   * The changes of this phase's new links, and what the end of the run found
   * of the links changed: how many redirect to their last acknowledged change
   * (or a later one of unknown outcome), read as they redirect, and show it in
   * the `links` projection.
   */
  changes: Omit<ChangeTally, 'links'> & { links: number; redirectsHeld: number; readsHeld: number; projected: number };
  /** Rows in `clicks` for this phase's links, and distinct event ids among them. */
  clickRows: number;
  clickEvents: number;
  /** From the fault's end until a click showed in analytics within 2 s (null: not within the wait). */
  freshWithinMsOfEnd: number | null;
  /** The redirect rate each redirector carried, to size what a killed one can hold. */
  redirectsPerSecondPerRedirector: number;
  /** The webhook phase's deliveries: judged by webhook-verdict.ts besides the rules every phase has. */
  webhooks?: WebhookEvidence;
}

export interface Check {
  name: string;
  /**
   * `exactness`: what was acknowledged, lost or counted twice, true on any
   * machine. `timing`: a service level (a share answered, a time to recover),
   * which a starved machine can miss; `npm run chaos` holds both, the short
   * form in `npm test` holds exactness only (timing goals are not tests).
   */
  kind: 'exactness' | 'timing';
  ok: boolean;
  detail: string;
}

export interface PhaseVerdict {
  fault: string;
  ok: boolean;
  redirected302Percent: number;
  serverErrors: number;
  createsAcknowledged: number;
  acknowledgedRedirecting: number;
  /** `PATCH`es sent and answered 200. */
  changesSent: number;
  changesAcknowledged: number;
  clicksExpected: number;
  clicksCounted: number;
  clicksLost: number;
  clicksCountedTwice: number;
  /** Clicks of redirects whose 302 this client never saw (unanswered in time, or a 5xx from the entry point). */
  clicksOfUnseenRedirects: number;
  freshWithinMsOfEnd: number | null;
  notes: Record<string, number | string>;
  /** The webhook phase's figures: events, deliveries, duplicates, time to drain. */
  webhooks?: WebhookFigures;
  checks: Check[];
}

/** Faults after which a process's unacknowledged clicks may be gone: a kill -9 of a redirector, nothing else. */
const MAY_LOSE_HELD_CLICKS = new Set(['redirector-kill']);

/** ` (3 UND_ERR_SOCKET, 1 UND_ERR_HEADERS_TIMEOUT)`, most first; nothing when there were none. */
const reasons = (byReason: Record<string, number>) => {
  const entries = Object.entries(byReason).sort(([, a], [, b]) => b - a);
  return entries.length === 0 ? '' : ` (${entries.map(([reason, n]) => `${n} ${reason}`).join(', ')})`;
};

/** The check of the share of redirects answered 302, which the report quotes for any phase that missed a rule. */
export const REDIRECTS_ANSWERED = 'redirects answered 302';

const FRESHNESS_RECOVERY_MS = 60_000;
const MIN_REDIRECTED = 0.999;

/**
 * The rules a fault must pass: ≥ 99.9 % of the redirects due were sent and ≥ 99.9 % answered 302; every acknowledged
 * link redirects afterwards; no click counted twice, none lost but what a redirector killed with `kill -9` held
 * unacknowledged; creates answered within 5 s (503 with Retry-After during a Postgres outage); every change answered
 * 200 read back at once, kept to the end and projected, each within 5 s; freshness under 2 s within 60 s of the end.
 * A phase with webhook evidence is held to the webhook rules too (webhook-verdict.ts).
 */
export function judgePhase(e: PhaseEvidence): PhaseVerdict {
  const expected = e.redirects.redirected + e.probeRedirects;
  // An event id is fixed when its redirect is answered: one in two rows is a click counted twice.
  const countedTwice = e.clickRows - e.clickEvents;
  // More events than 302s seen: redirects the redirector answered and counted whose answer never
  // reached this client (timed out here, or turned into a 5xx by the entry point on the way).
  const unseen = Math.max(0, e.clickEvents - expected);
  const unseenAllowance = e.redirects.failures + e.redirects.serverErrors;
  const lost = Math.max(0, expected - e.clickEvents);
  const share = e.redirects.sent === 0 ? 1 : e.redirects.redirected / e.redirects.sent;
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail: string, kind: Check['kind'] = 'exactness') =>
    checks.push({ name, kind, ok, detail });

  const due = e.redirects.sent + e.redirects.notSent;
  check(
    'redirects sent on schedule',
    due === 0 || e.redirects.sent / due >= MIN_REDIRECTED,
    `${e.redirects.sent} of ${due} due (${e.redirects.notSent} not sent: every connection was waiting on an answer)`,
    'timing',
  );
  check(
    REDIRECTS_ANSWERED,
    share >= MIN_REDIRECTED,
    `${(share * 100).toFixed(3)} % of ${e.redirects.sent} (${e.redirects.serverErrors} 5xx, ` +
      `${e.redirects.failures} unanswered${reasons(e.redirects.failureReasons)}, ${e.redirects.wrongLocations} wrong Location)`,
    'timing',
  );
  check('no redirect to a wrong Location', e.redirects.wrongLocations === 0, `${e.redirects.wrongLocations} wrong`);
  check(
    'acknowledged links redirect',
    e.acknowledgedRedirecting === e.creates.acknowledged,
    `${e.acknowledgedRedirecting} of ${e.creates.acknowledged}`,
  );
  check('no click counted twice', countedTwice === 0, `${countedTwice} extra of ${e.clickRows} rows`);
  check(
    'no click without a redirect answered',
    unseen <= unseenAllowance,
    `${unseen} clicks beyond the 302s seen; ${unseenAllowance} redirects unanswered or 5xx here, ` +
      'which the redirector may have answered (and counted) all the same',
  );
  if (MAY_LOSE_HELD_CLICKS.has(e.fault)) {
    const held = Number(e.notes.clicksHeldAtKill ?? 0);
    const window = Number(e.notes.readToKillMs ?? 0);
    const allowance = held + Math.ceil((e.redirectsPerSecondPerRedirector * window) / 1000);
    check(
      'clicks lost at most what the killed redirector held',
      lost <= allowance,
      `${lost} lost; it held ${held}, plus up to ${allowance - held} taken in the ${window} ms before the kill`,
    );
  } else {
    check('no click lost', lost === 0, `${e.clickEvents} of ${expected} counted`);
  }
  const otherCreates = Object.entries(e.creates.statuses)
    .filter(([status]) => status !== '201')
    .reduce((sum, [, n]) => sum + n, 0);
  check(
    'creates answered within 5 s',
    e.creates.overFiveSeconds === 0 && e.creates.notSent === 0,
    `slowest ${Math.round(e.creates.slowestMs)} ms over ${e.creates.sent} creates; ` +
      `${e.creates.notSent} not sent (every connection waiting); ` +
      `${e.creates.failures} unanswered${reasons(e.creates.failureReasons)}`,
    'timing',
  );
  if (e.fault === 'postgres-restart') {
    check(
      'creates refused with 503 and Retry-After during the outage',
      otherCreates === e.creates.unavailableWithRetryAfter && e.creates.failures === 0,
      `${otherCreates} refused, ${e.creates.unavailableWithRetryAfter} of them 503 with Retry-After; ${e.creates.failures} unanswered${reasons(e.creates.failureReasons)}; statuses ${JSON.stringify(e.creates.statuses)}`,
    );
  }
  const c = e.changes;
  check(
    'acknowledged changes read back at once',
    c.staleRedirectsAfterAck === 0 && c.staleReadsAfterAck === 0,
    `after ${c.statuses['200'] ?? 0} changes answered 200: ${c.staleRedirectsAfterAck} next redirects and ` +
      `${c.staleReadsAfterAck} next reads showed another destination (${c.unreadAfterAck} unanswered or 5xx)`,
  );
  check(
    'acknowledged changes hold',
    c.redirectsHeld === c.links && c.readsHeld === c.links,
    `of ${c.links} links changed, ${c.redirectsHeld} redirect to their last acknowledged change ` +
      `(or a later one of unknown outcome), ${c.readsHeld} read as they redirect`,
  );
  check(
    'changes reach the links projection',
    c.projected === c.links,
    `${c.projected} of ${c.links} changed links projected at the write model's version`,
  );
  check(
    'no change of a link refused',
    c.refused === 0,
    `${c.refused} answered 4xx; statuses ${JSON.stringify(c.statuses)}`,
  );
  check(
    'changes answered within 5 s',
    c.overFiveSeconds === 0,
    `slowest ${Math.round(c.slowestMs)} ms over ${c.sent} changes; ` +
      `${c.failures} unanswered${reasons(c.failureReasons)}`,
    'timing',
  );
  check(
    'freshness under 2 s within 60 s of the end',
    e.freshWithinMsOfEnd !== null && e.freshWithinMsOfEnd <= FRESHNESS_RECOVERY_MS,
    e.freshWithinMsOfEnd === null ? 'not back' : `${Math.round(e.freshWithinMsOfEnd)} ms after the end`,
    'timing',
  );
  const webhooks = e.webhooks && judgeWebhooks(e.webhooks);
  if (webhooks) checks.push(...webhooks.checks);

  return {
    fault: e.fault,
    ok: checks.every((c) => c.ok),
    redirected302Percent: Number((share * 100).toFixed(3)),
    serverErrors: e.redirects.serverErrors,
    createsAcknowledged: e.creates.acknowledged,
    acknowledgedRedirecting: e.acknowledgedRedirecting,
    changesSent: c.sent,
    changesAcknowledged: c.statuses['200'] ?? 0,
    clicksExpected: expected,
    clicksCounted: e.clickEvents,
    clicksLost: lost,
    clicksCountedTwice: countedTwice,
    clicksOfUnseenRedirects: unseen,
    freshWithinMsOfEnd: e.freshWithinMsOfEnd,
    notes: e.notes,
    ...(webhooks && { webhooks: webhooks.figures }),
    checks,
  };
}

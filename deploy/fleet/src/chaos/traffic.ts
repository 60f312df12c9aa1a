import { Pool } from 'undici';
import { BROWSER_AGENTS } from './browser-agents';
import { newApiAnswers, noteAnswer, noteReason, type ApiAnswers } from './api-answers';
import { changeLink, newChangeTally, type ChangedLink, type ChangeTally } from './change-traffic';

/** One second of a phase's redirects, by when they were due (sent, not sent) or answered. */
export interface TrafficSecond {
  sent: number;
  notSent: number;
  /** Answers of any kind, and how many of them were 302s. */
  answered: number;
  redirected: number;
  /** 5xx answers (counted when they came), and requests that got no answer (counted in the second they were sent). */
  serverErrors: number;
  failures: number;
  /** The slowest answer that came in this second, in ms. */
  slowestMs: number;
  /** The most redirects waiting on an answer at once this second. */
  inFlightMax: number;
  /** The share of the machine's CPU busy over the second before (null: not read). */
  machineBusyPercent: number | null;
}

/** What one phase's redirect traffic got back. */
export interface RedirectTally {
  sent: number;
  /**
   * Redirects the schedule asked for while every connection was still waiting
   * on an answer: not sent, since a request queued in this client for minutes
   * would be answered in a later phase (and its click judged there).
   */
  notSent: number;
  /** 302s, each a human click that must reach ClickHouse exactly once. */
  redirected: number;
  serverErrors: number;
  /** Answers other than 302 and 5xx (a 404 for a link that exists is one). */
  otherStatuses: Record<string, number>;
  /** No answer at all: refused, reset or timed out. */
  failures: number;
  /** The failures by what this client was told (undici's error code), so a reset is told from a timeout. */
  failureReasons: Record<string, number>;
  /** Wrong Location for a link (must stay 0). */
  wrongLocations: number;
  latenciesMs: number[];
  /** 302s per slug, so a shortfall can be traced to the partitions (and so the brokers) it fell on. */
  bySlug: Record<string, number>;
  /** Second by second from the phase's start: where in a fault the redirects waited or went unsent. */
  timeline: TrafficSecond[];
  /** When the phase started (performance.now()), the timeline's second 0. */
  startedAt: number;
}

export interface CreateTally extends ApiAnswers {
  /** As for redirects: due while every API connection was busy. */
  notSent: number;
  acknowledged: { id: string; slug: string; url: string }[];
}

const newRedirectTally = (): RedirectTally => ({
  sent: 0,
  notSent: 0,
  redirected: 0,
  serverErrors: 0,
  otherStatuses: {},
  failures: 0,
  failureReasons: {},
  wrongLocations: 0,
  latenciesMs: [],
  bySlug: {},
  timeline: [],
  startedAt: performance.now(),
});

/** The tally's entry for the current second. */
function second(tally: RedirectTally): TrafficSecond {
  const at = Math.max(0, Math.floor((performance.now() - tally.startedAt) / 1000));
  for (let i = tally.timeline.length; i <= at; i++) {
    tally.timeline.push({
      sent: 0,
      notSent: 0,
      answered: 0,
      redirected: 0,
      serverErrors: 0,
      failures: 0,
      slowestMs: 0,
      inFlightMax: 0,
      machineBusyPercent: null,
    });
  }
  return tally.timeline[at]!;
}

const newCreateTally = (): CreateTally => ({ ...newApiAnswers(), notSent: 0, acknowledged: [] });

export interface TargetLink {
  slug: string;
  url: string;
}

/** A phase's tallies, and its requests still waiting on an answer. */
export interface PhaseTraffic {
  redirects: RedirectTally;
  creates: CreateTally;
  changes: ChangeTally;
  /** Resolves once every request of the phase has its answer (or gave up on it, after 10 s). */
  settled: () => Promise<void>;
}

/**
 * Redirects in flight at once: a second of the schedule at 2,000/s, so a
 * stall of the fleet shorter than that delays redirects without skipping any
 * (with 256, stalls under load left 1 to 12 % of a phase's redirects unsent;
 * with 1,024, 0.1 to 0.2 % in two phases of eight).
 */
const REDIRECT_CONNECTIONS = 2048;
/**
 * Enough that creates answered slowly during a fault (up to 5 s each, 50 a
 * second) never wait for a connection here: the time measured is the
 * service's, not this client's queue.
 */
const API_CONNECTIONS = 400;
/** The longest a request waits for its answer's headers, and then its body. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * Open-loop traffic through the entry point: redirects (each visitor its own address) and creates at fixed rates, each
 * answer tallied under the phase current when its request left. A request goes out on schedule or not at all: when
 * every connection still waits on an answer, the request due is counted as not sent, since a queued one would leave in
 * a later fault's phase and be judged against a phase whose fault never touched it
 * (docs/decisions/0036-open-loop-chaos-traffic.md).
 */
export class Traffic {
  /** Redirects and creates on separate connections: a slow create never queues a redirect, nor the reverse. */
  private readonly pool: Pool;
  private readonly apiPool: Pool;
  private links: readonly TargetLink[] = [];
  private phase = Traffic.newPhase();
  private timer: NodeJS.Timeout | undefined;
  private redirectsInFlight = 0;
  private createsInFlight = 0;
  private changesInFlight = 0;
  private n = 0;

  private readonly connections: { redirects: number; api: number };

  constructor(
    entryUrl: string,
    private readonly apiKey: string,
    private readonly rates: { redirectsPerSecond: number; createsPerSecond: number; changesPerSecond?: number },
    connections: { redirects?: number; api?: number } = {},
  ) {
    this.connections = {
      redirects: connections.redirects ?? REDIRECT_CONNECTIONS,
      api: connections.api ?? API_CONNECTIONS,
    };
    // Idle connections kept by the entry point's keep-alive hint (25 s); an answer without one (the
    // entry point's own error pages) 20 s, under the 30 s after which the entry point closes them.
    const pool = (n: number) =>
      new Pool(entryUrl, { connections: n, pipelining: 1, keepAliveTimeout: 20_000, keepAliveMaxTimeout: 60_000 });
    this.pool = pool(this.connections.redirects);
    this.apiPool = pool(this.connections.api);
  }

  private static newPhase() {
    return {
      redirects: newRedirectTally(),
      creates: newCreateTally(),
      changes: newChangeTally(),
      inFlight: new Set<Promise<void>>(),
    };
  }

  /** Sends the next redirects to these links, tallied afresh; returns the phase that ends. */
  nextPhase(links: readonly TargetLink[]): PhaseTraffic {
    const { redirects, creates, changes, inFlight } = this.phase;
    this.links = links;
    this.phase = Traffic.newPhase();
    return { redirects, creates, changes, settled: () => Promise.all(inFlight).then(() => undefined) };
  }

  /** These rates from now on, on the connections already open (a calibration's next step). */
  setRates(rates: { redirectsPerSecond: number; createsPerSecond: number; changesPerSecond: number }): void {
    Object.assign(this.rates, rates);
  }

  /** Notes how busy the machine was (watchMachineBusy) on the current second of the phase's redirects. */
  noteMachineBusy(percent: number): void {
    second(this.phase.redirects).machineBusyPercent = percent;
  }

  start(): void {
    const tickMs = 10;
    let started = performance.now();
    let redirectsDue = 0;
    let createsDue = 0;
    let changesDue = 0;
    this.timer = setInterval(() => {
      const now = performance.now();
      const elapsed = (now - started) / 1000;
      started = now;
      redirectsDue += elapsed * this.rates.redirectsPerSecond;
      createsDue += elapsed * this.rates.createsPerSecond;
      changesDue += elapsed * (this.rates.changesPerSecond ?? 0);
      for (; redirectsDue >= 1; redirectsDue--) this.sendRedirect();
      for (; createsDue >= 1; createsDue--) this.sendCreate();
      for (; changesDue >= 1; changesDue--) this.sendChange();
    }, tickMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.nextPhase(this.links).settled();
  }

  async close(): Promise<void> {
    await this.stop();
    await Promise.all([this.pool.close(), this.apiPool.close()]);
  }

  private sendRedirect(): void {
    if (this.links.length === 0) return;
    const now = second(this.phase.redirects);
    if (this.redirectsInFlight >= this.connections.redirects) {
      this.phase.redirects.notSent++;
      now.notSent++;
      return;
    }
    this.redirectsInFlight++;
    now.sent++;
    now.inFlightMax = Math.max(now.inFlightMax, this.redirectsInFlight);
    this.track(this.redirect().finally(() => this.redirectsInFlight--));
  }

  private sendCreate(): void {
    if (this.createsInFlight + this.changesInFlight >= this.connections.api) {
      this.phase.creates.notSent++;
      return;
    }
    this.createsInFlight++;
    this.track(this.create().finally(() => this.createsInFlight--));
  }

  /**
   * Changes one of the links this phase's creates got back (never a link the
   * redirects check the Location of), one change of a link at a time.
   */
  private sendChange(): void {
    const { creates, changes } = this.phase;
    const link = this.freeLinkToChange(creates, changes);
    if (link === undefined || this.createsInFlight + this.changesInFlight >= this.connections.api) {
      changes.noLinkFree++;
      return;
    }
    link.inFlight = true;
    this.changesInFlight++;
    const http = {
      api: this.apiPool,
      redirects: this.pool,
      apiKey: this.apiKey,
      timeoutMs: ANSWER_TIMEOUT_MS,
    };
    this.track(
      changeLink(http, changes, link).finally(() => {
        link.inFlight = false;
        this.changesInFlight--;
      }),
    );
  }

  private freeLinkToChange(creates: CreateTally, changes: ChangeTally): ChangedLink | undefined {
    const { acknowledged } = creates;
    for (let tries = 0; tries < 8 && acknowledged.length > 0; tries++) {
      const created = acknowledged[Math.floor(Math.random() * acknowledged.length)]!;
      let link = changes.links.get(created.slug);
      if (link === undefined) {
        link = { slug: created.slug, acknowledged: created.url, uncertain: [], n: 0, inFlight: false };
        changes.links.set(created.slug, link);
      }
      if (!link.inFlight) return link;
    }
    return undefined;
  }

  private track(p: Promise<void>): void {
    const { inFlight } = this.phase;
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  private async redirect(): Promise<void> {
    // Any link, at random: taken in turn, an even number of links alternated over by the entry point's
    // round robin would send each link to one redirector only, leaving it cold on the other when that
    // one takes all the traffic during a fault.
    const link = this.links[Math.floor(Math.random() * this.links.length)]!;
    const n = this.n++;
    const tally = this.phase.redirects;
    tally.sent++;
    // A request given up on after 10 s is placed where it was sent: that is where the fleet stalled.
    const sentIn = second(tally);
    const started = performance.now();
    try {
      const res = await this.pool.request({
        method: 'GET',
        path: `/${link.slug}`,
        headers: {
          'user-agent': BROWSER_AGENTS[n % BROWSER_AGENTS.length]!,
          'x-forwarded-for': `198.51.${(n >> 8) & 255}.${n & 255}`,
          accept: 'text/html',
        },
        headersTimeout: ANSWER_TIMEOUT_MS,
        bodyTimeout: ANSWER_TIMEOUT_MS,
      });
      await res.body.dump();
      const tookMs = performance.now() - started;
      tally.latenciesMs.push(tookMs);
      const now = second(tally);
      now.answered++;
      now.slowestMs = Math.max(now.slowestMs, Math.round(tookMs));
      if (res.statusCode === 302) {
        tally.redirected++;
        now.redirected++;
        tally.bySlug[link.slug] = (tally.bySlug[link.slug] ?? 0) + 1;
        if (res.headers.location !== link.url) tally.wrongLocations++;
      } else if (res.statusCode >= 500) {
        tally.serverErrors++;
        now.serverErrors++;
      } else tally.otherStatuses[res.statusCode] = (tally.otherStatuses[res.statusCode] ?? 0) + 1;
    } catch (err) {
      tally.failures++;
      noteReason(tally.failureReasons, err);
      sentIn.failures++;
    }
  }

  private async create(): Promise<void> {
    const tally = this.phase.creates;
    tally.sent++;
    const url = `https://example.com/chaos/${Date.now()}/${tally.sent}`;
    const started = performance.now();
    try {
      const res = await this.apiPool.request({
        method: 'POST',
        path: '/api/v1/links',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, tag: 'chaos' }),
        headersTimeout: ANSWER_TIMEOUT_MS,
        bodyTimeout: ANSWER_TIMEOUT_MS,
      });
      const text = await res.body.text();
      noteAnswer(tally, started, res);
      let body: { id?: string; slug?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // Counted by status below; the entry point's own pages are JSON too, but a proxy on the way might not be.
      }
      if (res.statusCode === 201 && body.id && body.slug)
        tally.acknowledged.push({ id: body.id, slug: body.slug, url });
    } catch (err) {
      noteAnswer(tally, started, { error: err });
    }
  }
}

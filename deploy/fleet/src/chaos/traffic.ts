import { Pool } from 'undici';
import { BROWSER_AGENTS } from './browser-agents';

/** What one phase's redirect traffic got back. */
export interface RedirectTally {
  sent: number;
  /** 302s, each a human click that must reach ClickHouse exactly once. */
  redirected: number;
  serverErrors: number;
  /** Answers other than 302 and 5xx (a 404 for a link that exists is one). */
  otherStatuses: Record<string, number>;
  /** No answer at all: refused, reset or timed out. */
  failures: number;
  /** Wrong Location for a link (must stay 0). */
  wrongLocations: number;
  latenciesMs: number[];
  /** 302s per slug, so a shortfall can be traced to the partitions (and so the brokers) it fell on. */
  bySlug: Record<string, number>;
}

export interface CreateTally {
  sent: number;
  acknowledged: { id: string; slug: string; url: string }[];
  statuses: Record<string, number>;
  /** 503s that carried Retry-After, as the README promises during an outage. */
  unavailableWithRetryAfter: number;
  failures: number;
  slowestMs: number;
  /** Answered after more than 5 s, or not at all within 10 s. */
  overFiveSeconds: number;
}

const newRedirectTally = (): RedirectTally => ({
  sent: 0,
  redirected: 0,
  serverErrors: 0,
  otherStatuses: {},
  failures: 0,
  wrongLocations: 0,
  latenciesMs: [],
  bySlug: {},
});

const newCreateTally = (): CreateTally => ({
  sent: 0,
  acknowledged: [],
  statuses: {},
  unavailableWithRetryAfter: 0,
  failures: 0,
  slowestMs: 0,
  overFiveSeconds: 0,
});

export interface TargetLink {
  slug: string;
  url: string;
}

/**
 * Open-loop traffic through the entry point: redirects at a fixed rate over
 * the current phase's links (from browsers, each visitor its own address)
 * and creates at a fixed rate. Requests go out on schedule whatever the
 * answers do, as real visitors would; each answer is tallied under the phase
 * that was current when its request left.
 */
export class Traffic {
  /** Redirects and creates on separate connections: a slow create never queues a redirect, nor the reverse. */
  private readonly pool: Pool;
  private readonly apiPool: Pool;
  private links: readonly TargetLink[] = [];
  private redirects = newRedirectTally();
  private creates = newCreateTally();
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private n = 0;

  constructor(
    private readonly entryUrl: string,
    private readonly apiKey: string,
    private readonly rates: { redirectsPerSecond: number; createsPerSecond: number },
  ) {
    this.pool = new Pool(entryUrl, { connections: 64, pipelining: 1, keepAliveTimeout: 5000 });
    // Enough that creates answered slowly during a fault (up to 5 s each, 50 a second) never wait for a
    // connection here: the time measured is the service's, not this client's queue.
    this.apiPool = new Pool(entryUrl, { connections: 400, pipelining: 1, keepAliveTimeout: 5000 });
  }

  /** Sends the next redirects to these links, tallied afresh; returns the tallies of the phase that ends. */
  nextPhase(links: readonly TargetLink[]): { redirects: RedirectTally; creates: CreateTally } {
    const ended = { redirects: this.redirects, creates: this.creates };
    this.links = links;
    this.redirects = newRedirectTally();
    this.creates = newCreateTally();
    return ended;
  }

  start(): void {
    const tickMs = 10;
    let started = performance.now();
    let redirectsDue = 0;
    let createsDue = 0;
    this.timer = setInterval(() => {
      const now = performance.now();
      const elapsed = (now - started) / 1000;
      started = now;
      redirectsDue += elapsed * this.rates.redirectsPerSecond;
      createsDue += elapsed * this.rates.createsPerSecond;
      for (; redirectsDue >= 1; redirectsDue--) this.track(this.redirect());
      for (; createsDue >= 1; createsDue--) this.track(this.create());
    }, tickMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  async close(): Promise<void> {
    await this.stop();
    await Promise.all([this.pool.close(), this.apiPool.close()]);
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async redirect(): Promise<void> {
    const link = this.links[this.n % Math.max(1, this.links.length)];
    if (!link) return;
    const n = this.n++;
    const tally = this.redirects;
    tally.sent++;
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
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.dump();
      tally.latenciesMs.push(performance.now() - started);
      if (res.statusCode === 302) {
        tally.redirected++;
        tally.bySlug[link.slug] = (tally.bySlug[link.slug] ?? 0) + 1;
        if (res.headers.location !== link.url) tally.wrongLocations++;
      } else if (res.statusCode >= 500) tally.serverErrors++;
      else tally.otherStatuses[res.statusCode] = (tally.otherStatuses[res.statusCode] ?? 0) + 1;
    } catch {
      tally.failures++;
    }
  }

  private async create(): Promise<void> {
    const tally = this.creates;
    tally.sent++;
    const url = `https://example.com/chaos/${Date.now()}/${tally.sent}`;
    const started = performance.now();
    try {
      const res = await this.apiPool.request({
        method: 'POST',
        path: '/api/v1/links',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, tag: 'chaos' }),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      let body: { id?: string; slug?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // Counted by status below; the entry point's own pages are JSON too, but a proxy on the way might not be.
      }
      tally.statuses[res.statusCode] = (tally.statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === 201 && body.id && body.slug)
        tally.acknowledged.push({ id: body.id, slug: body.slug, url });
      if (res.statusCode === 503 && res.headers['retry-after'] !== undefined) tally.unavailableWithRetryAfter++;
    } catch {
      tally.failures++;
    }
    const took = performance.now() - started;
    tally.slowestMs = Math.max(tally.slowestMs, took);
    if (took > 5000) tally.overFiveSeconds++;
  }
}

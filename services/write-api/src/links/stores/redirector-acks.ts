import { performance } from 'node:perf_hooks';
import { Client, type Pool } from 'pg';
import { singleFlightPerKey, summarizedReport } from '@shortlink/batching';
import {
  CHANNELS,
  liveRedirectorLeases,
  parsePayloadPair,
  REDIRECTOR_LEASE_MS,
  type LiveLease,
} from '@shortlink/postgres';

export interface AcksLogger {
  warn(obj: object, msg: string): void;
}

/** How a change's wait for the redirectors ended. */
export interface RedirectorsOutcome {
  /** Redirectors leased after the change committed. */
  leased: number;
  /** Of those, the ones that confirmed they dropped the slug. */
  confirmed: number;
  /** Of those, the ones whose lease ran out first: they check every link in Postgres until they listen again. */
  lapsed: number;
}

/**
 * How a change's wait ended, for the metric: every leased redirector
 * confirmed; one or more leases ran out first; the leases could not be read
 * (it waited a whole lease); or no redirector was leased.
 */
export type RedirectorWaitOutcome = 'confirmed' | 'lapsed' | 'unknown' | 'none';

/** How often changes that waited for a lease to run out are said in the log, at most. */
const LAPSED_REPORT_MS = 5000;

export interface ChangeExpectation {
  /**
   * Called after the change committed: resolves once every redirector leased
   * now has confirmed the change, or its lease has run out. Never rejects.
   */
  settle(): Promise<RedirectorsOutcome>;
  /** The change did not commit: stop collecting confirmations for it. */
  cancel(): void;
}

export interface RedirectorAcks {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Called before the change commits, so no confirmation can arrive before it is looked for. */
  expect(changeId: string): ChangeExpectation;
}

/**
 * The write API's view of the redirectors: it listens for their confirmations on `linkChangeApplied` and waits for the
 * redirectors leased (`redirector_leases`) when the change committed. One not leased then either was not listening (it
 * drops its whole cache when it starts) or had let its lease run out (it stopped trusting its cache), so once each
 * leased one confirmed or its lease ran out, none answers from before the change. Confirmations only shorten the wait,
 * to at most REDIRECTOR_LEASE_MS without them (docs/decisions/0035-redirector-leases.md).
 */
export function redirectorAcks(options: {
  connectionString: string;
  pool: Pool;
  logger: AcksLogger;
  /** The longest a change waits, whatever the leases say. */
  maxWaitMs?: number;
  /** Told how each change's wait ended, and how long it took from the commit (a metric). */
  onSettled?: (outcome: RedirectorWaitOutcome, seconds: number) => void;
}): RedirectorAcks {
  const { pool, logger } = options;
  const maxWaitMs = options.maxWaitMs ?? REDIRECTOR_LEASE_MS + 1000;
  /** Per change in flight: who confirmed it, and what to do on the next confirmation. */
  const changes = new Map<string, { confirmed: Set<string>; onConfirm?: () => void }>();
  let client: Client | undefined;
  /**
   * One read of the leases at a time, shared: a change needs a read begun
   * after it committed, and every change that commits while one runs takes
   * the next. A crowd of changes then costs a few reads, and the connection
   * never gets a query while it runs one (pg queues that, with a warning
   * that pg 9 refuses it).
   */
  const leaseReads = singleFlightPerKey<LiveLease[]>();
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  // A redirector killed or renewing late costs every change for up to 3 s, and a line each (1,644 in a storm
  // of 2,400) drowned the log; the metric counts each.
  const lapsedWaits = summarizedReport<string>(LAPSED_REPORT_MS, (changes, changeId) =>
    logger.warn({ changes, changeId }, 'link changes waited for redirector leases to run out'),
  );

  async function connect(): Promise<void> {
    const c = new Client({ connectionString: options.connectionString, application_name: 'write-api-acks' });
    c.on('notification', (msg) => {
      const pair = msg.channel === CHANNELS.linkChangeApplied ? parsePayloadPair(msg.payload) : null;
      if (!pair) return;
      const [listenerId, changeId] = pair;
      const change = changes.get(changeId);
      if (!change) return;
      change.confirmed.add(listenerId);
      change.onConfirm?.();
    });
    c.on('error', (err) => {
      if (client === c) client = undefined;
      logger.warn({ err }, 'redirector confirmation connection lost; reconnecting');
      void c.end().catch(() => undefined);
      schedule(1000);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNELS.linkChangeApplied}`);
    client = c;
  }

  function schedule(delayMs: number): void {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        logger.warn({ err }, 'could not listen for redirector confirmations; retrying');
        schedule(Math.min(delayMs * 2, 5000));
      });
    }, delayMs);
  }

  function expect(changeId: string): ChangeExpectation {
    const change: { confirmed: Set<string>; onConfirm?: () => void } = { confirmed: new Set() };
    changes.set(changeId, change);
    return {
      cancel: () => changes.delete(changeId),
      async settle() {
        const settling = performance.now();
        const settled = (outcome: RedirectorWaitOutcome) =>
          options.onSettled?.(outcome, (performance.now() - settling) / 1000);
        let leases: LiveLease[];
        try {
          // On the confirmations' own connection while it is up: a pool busy with changes that
          // queue for a link's lock made this read wait 5 s for a connection, then 3 s more.
          leases = await leaseReads.fresh('leases', () => liveRedirectorLeases(client ?? pool));
        } catch (err) {
          // Who must confirm cannot be known: wait as long as any lease taken before the change can last.
          logger.warn({ err }, 'could not read redirector leases; waiting for every lease to run out');
          await new Promise((resolve) => setTimeout(resolve, REDIRECTOR_LEASE_MS).unref());
          changes.delete(changeId);
          settled('unknown');
          return { leased: 0, confirmed: 0, lapsed: 0 };
        }
        // Timers start after Postgres measured `remainingMs`: each one ends after that lease did.
        const start = Date.now();
        const deadlines = new Map(leases.map((l) => [l.listenerId, start + Math.min(l.remainingMs, maxWaitMs)]));
        const outcome = await new Promise<RedirectorsOutcome>((resolve) => {
          let timer: NodeJS.Timeout | undefined;
          const check = () => {
            const now = Date.now();
            let next = Number.POSITIVE_INFINITY;
            let confirmed = 0;
            let lapsed = 0;
            for (const [listenerId, deadline] of deadlines) {
              if (change.confirmed.has(listenerId)) confirmed++;
              else if (deadline <= now) lapsed++;
              else next = Math.min(next, deadline);
            }
            clearTimeout(timer);
            if (next === Number.POSITIVE_INFINITY) {
              change.onConfirm = undefined;
              resolve({ leased: deadlines.size, confirmed, lapsed });
            } else {
              timer = setTimeout(check, next - now + 1);
            }
          };
          change.onConfirm = check;
          check();
        });
        changes.delete(changeId);
        settled(outcome.lapsed > 0 ? 'lapsed' : outcome.leased > 0 ? 'confirmed' : 'none');
        if (outcome.lapsed > 0) lapsedWaits.add(changeId);
        return outcome;
      },
    };
  }

  return {
    start: connect,
    expect,
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      lapsedWaits.flush();
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { groupCommit } from '@shortlink/batching';
import {
  CHANNELS,
  parsePayloadPair,
  REDIRECTOR_LEASE_MS,
  releaseRedirectorLease,
  renewRedirectorLease,
  servedDomain,
  servedDomains,
} from '@shortlink/postgres';
import type { ServedDomainMap } from './domains/served-domain-map';
import type { LinkCache } from './link-cache';

export interface InvalidationLogger {
  warn(obj: object, msg: string): void;
}

export interface LinkListener {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves true once every "slug created" notification committed before the
   * call has been applied to the cache; false when that cannot be known (not
   * listening), and the caller must not trust a remembered "not found".
   */
  catchUp(): Promise<boolean>;
  /**
   * Whether every link change committed so far has reached the cache: true
   * while this listener holds its lease. Synchronous and cheap (one clock
   * read): the cache asks on every request.
   */
  trusted(): boolean;
  /**
   * Postgres answered again (a lookup's probe, see outage-gate.ts): listen
   * now rather than when the reconnection backoff ends. Until it listens,
   * every redirect costs a lookup, and at full traffic those lookups are
   * what keeps a Postgres just back busy. Does nothing while listening or
   * connecting.
   */
  listenNow(): void;
}

/**
 * Why the cache stopped being trusted: the lease ran out before a renewal
 * came back (Postgres or this process too slow), or the listening connection
 * was lost. Either way every redirect looks its slug up in Postgres until the
 * listener is leased again, and the cache starts empty then.
 */
export type TrustLoss = 'lease_late' | 'connection_lost';

export interface LinkListenerOptions {
  /** Told each time the cache stops being trusted (a metric). */
  onTrustLost?: (reason: TrustLoss) => void;
  leaseMs?: number;
  renewEveryMs?: number;
  /** The first wait before listening again after the connection is lost (doubling up to 5 s). */
  firstRetryMs?: number;
  /** The verified domains, kept on the same connection and lease as the links. */
  domains?: ServedDomainMap;
}

/** Our lease ends this much before Postgres's, for clocks that tick at slightly different rates. */
const LEASE_MARGIN_MS = 250;

/**
 * Listens for link creations (drops cached "not found"s) and changes (drops the slug, then confirms on
 * `linkChangeApplied`, which the write API waits for). The cache is trusted only while its lease in
 * `redirector_leases`, renewed on this connection and timed from before each renewal, surely runs. A lost connection or
 * a late renewal ends the trust at once; a renewed lease restores it after the whole cache is dropped, since changes
 * may have been missed (docs/decisions/0035-redirector-leases.md). Verified domains ride on the same connection and
 * lease: loaded whole when trust begins, then changed one hostname at a time and confirmed like a link change.
 */
export function listenForLinkChanges(
  connectionString: string,
  cache: LinkCache,
  logger: InvalidationLogger,
  options: LinkListenerOptions = {},
): LinkListener {
  const leaseMs = options.leaseMs ?? REDIRECTOR_LEASE_MS;
  const renewEveryMs = options.renewEveryMs ?? Math.floor(leaseMs / 3);
  const firstRetryMs = options.firstRetryMs ?? 1000;
  const { domains } = options;
  let client: Client | undefined;
  let listenerId = '';
  let trustedUntil = 0;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  let pendingAcks: string[] = [];

  const trusted = () => performance.now() < trustedUntil;
  /** The loss of trust under way was told: renewals queued behind a late one find it lost too. */
  let lossTold = false;
  const trustLost = (reason: TrustLoss) => {
    if (!lossTold) options.onTrustLost?.(reason);
    lossTold = true;
  };
  /**
   * Every statement on a listening connection, one at a time in the order
   * asked: confirmations, lease renewals and catch-ups come when they will,
   * and pg 8 queues a query sent while another waits only with a deprecation
   * warning (pg 9 refuses it). The order is what the catch-up barrier needs.
   */
  const turns = new WeakMap<Client, <T>(statement: () => Promise<T>) => Promise<T>>();
  function inTurn<T>(c: Client, statement: () => Promise<T>): Promise<T> {
    let turn = turns.get(c);
    if (!turn) {
      let last: Promise<unknown> = Promise.resolve();
      turn = <U>(next: () => Promise<U>): Promise<U> => {
        const done = last.then(next, next);
        last = done.catch(() => undefined);
        return done;
      };
      turns.set(c, turn);
    }
    return turn(statement);
  }

  /** Renews the lease on `c`; trust resumes only if it had lapsed after the cache is emptied. */
  async function renew(c: Client): Promise<void> {
    const sentAt = performance.now();
    await inTurn(c, () => renewRedirectorLease(c, listenerId, leaseMs));
    if (client !== c) return;
    if (!trusted()) {
      // Leased before on this connection (not its first renewal): the lease ran out while this one was on its way.
      if (trustedUntil > 0) trustLost('lease_late');
      cache.forgetAll();
      // Read after LISTEN: a change committed since is heard and applied after this (the connection's one turn).
      if (domains) domains.replaceAll(await inTurn(c, () => servedDomains(c)));
      if (client !== c) return;
    }
    trustedUntil = sentAt + leaseMs - LEASE_MARGIN_MS;
    if (trusted()) lossTold = false;
  }

  function acknowledge(c: Client, changeId: string): void {
    pendingAcks.push(`${listenerId} ${changeId}`);
    if (pendingAcks.length > 1) return;
    // Every confirmation of this turn of the event loop in one statement.
    setImmediate(() => {
      const acks = pendingAcks;
      pendingAcks = [];
      inTurn(c, () =>
        c.query('SELECT pg_notify($1, ack) FROM unnest($2::text[]) AS ack', [CHANNELS.linkChangeApplied, acks]),
      ).catch(
        // The write API then waits for the lease to run out instead; ours ends when the connection does.
        (err: unknown) => logger.warn({ err }, 'could not confirm link changes'),
      );
    });
  }

  async function connect(): Promise<void> {
    const c = new Client({ connectionString, application_name: 'redirector-listen' });
    c.on('notification', (msg) => {
      if (msg.channel === CHANNELS.linkCreated && msg.payload) cache.forget(msg.payload);
      else if (msg.channel === CHANNELS.linkChanged) {
        const pair = parsePayloadPair(msg.payload);
        if (!pair) return;
        const [changeId, slug] = pair;
        cache.invalidate(slug);
        acknowledge(c, changeId);
      } else if (msg.channel === CHANNELS.domainChanged && domains) {
        const pair = parsePayloadPair(msg.payload);
        if (!pair) return;
        const [changeId, hostname] = pair;
        // Confirmed once the domain's new state is held; unconfirmed, the write API waits for the lease instead.
        inTurn(c, () => servedDomain(c, hostname)).then(
          (domain) => {
            domains.apply(hostname, domain);
            acknowledge(c, changeId);
          },
          (err: unknown) => logger.warn({ err, hostname }, 'could not read a changed domain'),
        );
      }
    });
    c.on('error', (err) => {
      if (client === c) {
        // Leased on it (trusted still, or its lease ran out with a renewal that never came back).
        if (trustedUntil > 0) trustLost('connection_lost');
        client = undefined;
        trustedUntil = 0;
        clearInterval(renewal);
      }
      logger.warn({ err }, 'link notification connection lost; reconnecting');
      cache.forgetAllMisses();
      void c.end().catch(() => undefined);
      schedule(firstRetryMs);
    });
    await c.connect();
    await inTurn(c, () => c.query(`LISTEN ${CHANNELS.linkCreated}`));
    await inTurn(c, () => c.query(`LISTEN ${CHANNELS.linkChanged}`));
    if (domains) await inTurn(c, () => c.query(`LISTEN ${CHANNELS.domainChanged}`));
    listenerId = randomUUID();
    pendingAcks = [];
    client = c;
    // Now leased, and listening since before: everything cached before may predate a missed change.
    trustedUntil = 0;
    await renew(c);
    clearInterval(renewal);
    renewal = setInterval(() => {
      if (client !== c) return;
      renew(c).catch((err: unknown) => logger.warn({ err }, 'could not renew the redirector lease'));
    }, renewEveryMs);
    renewal.unref();
  }

  function schedule(delayMs: number): void {
    if (stopped || retry) return;
    retry = setTimeout(() => reconnect(delayMs), delayMs);
  }

  function reconnect(delayMs: number): void {
    retry = undefined;
    connect().catch((err: unknown) => {
      logger.warn({ err }, 'could not listen for link changes; retrying');
      // Short: until it listens again, every redirect costs a Postgres lookup.
      schedule(Math.min(delayMs * 2, 5000));
    });
  }

  /*
   * A round trip on the listening connection is a barrier: Postgres sends a listener's pending notifications before it
   * answers the next query, and a create notifies before its client hears "committed". So once a `SELECT 1` sent after
   * a request arrived returns, every link created before that request is forgotten. Callers arriving while one is in
   * flight share the next (a group commit), never the one already sent, which may predate their request.
   */
  const catchUp = groupCommit(
    async (callers: unknown[]) => {
      const c = client;
      const caughtUp = c
        ? await inTurn(c, () => c.query('SELECT 1')).then(
            () => true,
            () => false,
          )
        : false;
      return callers.map(() => caughtUp);
    },
    { maxBatch: Number.POSITIVE_INFINITY, onFailure: 'fail-all' },
  );

  return {
    start: connect,
    catchUp: () => catchUp(undefined),
    trusted,
    listenNow() {
      if (stopped || !retry) return;
      clearTimeout(retry);
      reconnect(firstRetryMs);
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      clearInterval(renewal);
      const c = client;
      client = undefined;
      trustedUntil = 0;
      // A clean stop: no change waits for this redirector's lease to run out.
      if (c) await inTurn(c, () => releaseRedirectorLease(c, listenerId)).catch(() => undefined);
      await c?.end().catch(() => undefined);
    },
  };
}

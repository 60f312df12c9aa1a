import Denque from 'denque';
import { Heap } from 'heap-js';

export interface FetchSchedulerOptions<T> {
  /** Fetches in flight in all. */
  concurrency: number;
  /** Fetches in flight to one host, at most: what a browser opens to a site. */
  perHostConcurrency: number;
  /**
   * A fetch for a link created less than this long ago is fresh: it runs
   * ahead of older ones, the newest first. Older ones run oldest first, the
   * hosts taking turns.
   */
  freshMs: number;
  /**
   * Fetches in flight for one account, at most, while another account's
   * fetch waits (default: half of `concurrency`). Alone, an account may use
   * every slot.
   */
  accountShare?: number;
  /** Starts a fetch whose turn came; `done(fetch)` must be called once it ends, to free its slots. */
  start: (fetch: QueuedFetch<T>) => void;
  now?: () => number;
}

/** A fetch waiting for its turn, or running: what `schedule` gives, for `promote` and `done`. */
export interface QueuedFetch<T> {
  readonly item: T;
}

export interface FetchScheduler<T> {
  /**
   * Queues `item`, for `account`, for a slot in all and a slot for `host`;
   * `start(item)` runs it then, in the order described on the options.
   */
  schedule(host: string, createdAt: number, item: T, account: string): QueuedFetch<T>;
  /** A link created at `createdAt` waits for `fetch` too: moves it up if that is newer than what it waits for. */
  promote(fetch: QueuedFetch<T>, createdAt: number): void;
  /**
   * The fetch started is redirected to `host`: it gives up its slot on the
   * host it had and waits for one on `host` (ahead of the fetches queued
   * there), keeping its slot in all. Resolves once it has the slot; rejects
   * with `signal`'s reason if that aborts first, the fetch then holding no
   * host slot (`done` must still be called).
   */
  moveTo(fetch: QueuedFetch<T>, host: string, signal?: AbortSignal): Promise<void>;
  /** The fetch started ended: its slots are free. */
  done(fetch: QueuedFetch<T>): void;
  /** Fetches running, and waiting. */
  readonly inFlight: number;
  readonly queued: number;
}

/** Why a signal aborted, as an Error (`AbortSignal.timeout`'s is a DOMException, one already). */
const abortReason = (signal: AbortSignal | undefined): Error =>
  signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason ?? 'aborted'));

/**
 * A fetch in line: a plain object, no closure nor promise, since a backlog
 * queues as many as it has destinations (a hundred thousand, say).
 */
class Entry<T> implements QueuedFetch<T> {
  state: 'queued' | 'running' | 'done' = 'queued';
  /** Running: whether it holds a slot on `host` (not while it waits to move there). */
  holdsHost = false;
  /** Running and waiting to move to `host`: what gives it the slot there. */
  moving: (() => void) | undefined;
  constructor(
    public host: HostQueue<T>,
    public createdAt: number,
    readonly item: T,
    readonly account: AccountSlots,
  ) {}
}

/**
 * What one account holds and waits for. Small: a backlog may hold a fetch for
 * each of a hundred thousand accounts.
 */
interface AccountSlots {
  name: string;
  inFlight: number;
  queued: number;
}

/**
 * An entry's place on its host's fresh end, at the creation it had then: a
 * promoted entry gets a new ticket, and the old one is skipped when reached.
 */
class Ticket<T> {
  constructor(
    readonly createdAt: number,
    readonly entry: Entry<T>,
  ) {}
  get live(): boolean {
    return this.entry.state === 'queued' && this.entry.createdAt === this.createdAt;
  }
}

/** The newest ticket on top. */
const newestFirst = <T>(a: Ticket<T>, b: Ticket<T>) => b.createdAt - a.createdAt;

interface HostQueue<T> {
  name: string;
  /**
   * The backlog's end: oldest first, by arrival. Links arrive in about
   * creation order, so this is the cheap way to the oldest; started entries
   * stay in it until they reach its front, or it is compacted.
   */
  arrivals: Denque<Entry<T>>;
  /**
   * The fresh end: by creation, newest on top. Not by arrival: the partitions
   * of a backlog are read side by side, so its older links keep arriving after
   * a new one, and a promoted fetch is as new as its newest link.
   */
  newest: Heap<Ticket<T>>;
  /** Entries not yet started: each has one entry in `arrivals` and one live ticket in `newest`. */
  queued: number;
  inFlight: number;
  /** Fetches redirected here, running already, waiting for a slot: served before the queued ones. */
  movers: Denque<() => void>;
}

/**
 * Decides which fetch runs next, polite to each site and with no backlog ahead of a new link: at most
 * `perHostConcurrency` fetches to a host (a redirected fetch moves to a slot on its new host) and `concurrency` in all;
 * fresh links (younger than `freshMs`) first, the hosts taking turns newest first; then the backlog, hosts in turn,
 * oldest first (the oldest hold the commits back); an account holding `accountShare` slots starts no more while another
 * account waits, yet a slot is never left idle. Newest and promote are O(log n) in a host's queue, the rest O(1)
 * (docs/decisions/0058-preview-fetches-shared-by-account.md).
 */
export function createFetchScheduler<T>(options: FetchSchedulerOptions<T>): FetchScheduler<T> {
  const now = options.now ?? Date.now;
  const accountShare = options.accountShare ?? Math.max(1, Math.floor(options.concurrency / 2));
  const hosts = new Map<string, HostQueue<T>>();
  const accounts = new Map<string, AccountSlots>();
  /**
   * Accounts that held their share, each with the hosts whose next fetch was
   * theirs: put back in turn once the account may run again. A set is made
   * only for an account set aside.
   */
  const parking = new Map<AccountSlots, Set<HostQueue<T>>>();
  /** Hosts with a free slot and a waiting fetch, in turn order (a Set keeps insertion order). */
  const ready = new Set<HostQueue<T>>();
  /** Of those, the ones whose newest fetch may be fresh (checked when reached). */
  const fresh = new Set<HostQueue<T>>();
  let inFlight = 0;
  let queued = 0;
  /** A fetch that ends as it starts frees its slot inside `pump`: the loop running takes it. */
  let pumping = false;

  const isFresh = (entry: Entry<T>) => now() - entry.createdAt < options.freshMs;
  /** Holding its share while another account's fetch waits. */
  const atShare = (account: AccountSlots) => account.inFlight >= accountShare && queued > account.queued;

  function accountNamed(name: string): AccountSlots {
    let account = accounts.get(name);
    if (!account) {
      account = { name, inFlight: 0, queued: 0 };
      accounts.set(name, account);
    }
    return account;
  }

  function forgetIfIdle(account: AccountSlots): void {
    if (account.inFlight === 0 && account.queued === 0 && !parking.has(account)) accounts.delete(account.name);
  }

  /** Sets a host aside: its next fetch is `account`'s, which holds its share. */
  function park(host: HostQueue<T>, account: AccountSlots): void {
    ready.delete(host);
    fresh.delete(host);
    let parked = parking.get(account);
    if (!parked) parking.set(account, (parked = new Set()));
    parked.add(host);
  }

  /**
   * Puts hosts set aside for `account` back in turn, first set aside first,
   * as many as the fetches it may start now (all of them when no other
   * account waits); whether it put any back. One at a time, not all, or an
   * account set aside on thousands of hosts would have them all put back and
   * set aside again at each of its fetches' ends.
   */
  function unparkIfBelowShare(account: AccountSlots, parked: Set<HostQueue<T>>): boolean {
    if (atShare(account)) return false;
    const room = queued > account.queued ? accountShare - account.inFlight : Infinity;
    let put = 0;
    for (const host of parked) {
      if (put >= room) break;
      parked.delete(host);
      requeue(host);
      put++;
    }
    if (parked.size === 0) {
      parking.delete(account);
      forgetIfIdle(account);
    }
    return put > 0;
  }

  /**
   * Puts back in turn the hosts set aside for every account that may run
   * again (the others' fetches have started since); whether there were any.
   */
  function unpark(): boolean {
    let any = false;
    for (const [account, parked] of parking) any = unparkIfBelowShare(account, parked) || any;
    return any;
  }
  const hasRoom = (host: HostQueue<T>) => host.inFlight + host.movers.length < options.perHostConcurrency;

  function hostNamed(name: string): HostQueue<T> {
    let host = hosts.get(name);
    if (!host) {
      host = {
        name,
        arrivals: new Denque<Entry<T>>(),
        newest: new Heap<Ticket<T>>(newestFirst),
        queued: 0,
        inFlight: 0,
        movers: new Denque<() => void>(),
      };
      hosts.set(name, host);
    }
    return host;
  }

  /**
   * Drops the started entries and old tickets a host's ends hold once they
   * outnumber its queued entries, so neither end grows past twice what waits
   * there (a busy host whose fresh fetches all start from the top would
   * otherwise keep every one in `arrivals`). Amortized O(1) per entry.
   */
  function compact(host: HostQueue<T>): void {
    const bound = 2 * host.queued + 64;
    if (host.arrivals.length > bound) {
      host.arrivals = new Denque(host.arrivals.toArray().filter((entry) => entry.state === 'queued'));
    }
    if (host.newest.length > bound) host.newest.init(host.newest.toArray().filter((ticket) => ticket.live));
  }

  /** A fetch that waited to move to its host waits no more (its fetch was aborted, or ended). */
  function stopMoving(entry: Entry<T>): void {
    const waiting = entry.moving;
    if (!waiting) return;
    entry.moving = undefined;
    const movers = entry.host.movers;
    const at = movers.toArray().indexOf(waiting);
    if (at >= 0) movers.removeOne(at);
    requeue(entry.host);
  }

  /** A slot on `host` is free: a fetch moving there takes it first, else the host takes its turn again. */
  function release(host: HostQueue<T>): void {
    host.inFlight--;
    const mover = host.movers.shift();
    if (mover) {
      host.inFlight++;
      mover();
    }
    requeue(host);
  }

  /** The newest entry not yet started, dropping old tickets off the top. */
  function peekNewest(host: HostQueue<T>): Entry<T> | undefined {
    for (;;) {
      const ticket = host.newest.peek();
      if (!ticket || ticket.live) return ticket?.entry;
      host.newest.pop();
    }
  }

  /** The oldest entry not yet started, dropping started ones off the front. */
  function peekOldest(host: HostQueue<T>): Entry<T> | undefined {
    for (;;) {
      const entry = host.arrivals.peekFront();
      if (!entry || entry.state === 'queued') return entry;
      host.arrivals.shift();
    }
  }

  /** Puts a host back in turn (at the end) if it can run something now. */
  function requeue(host: HostQueue<T>): void {
    ready.delete(host);
    fresh.delete(host);
    const newest = peekNewest(host);
    if (!newest) {
      host.arrivals.clear(); // what is left in it has started
      if (host.inFlight === 0 && host.movers.isEmpty() && hosts.get(host.name) === host) hosts.delete(host.name);
      return;
    }
    if (!hasRoom(host)) return;
    ready.add(host);
    if (isFresh(newest)) fresh.add(host);
  }

  function nextFresh(): Entry<T> | undefined {
    for (const host of fresh) {
      const newest = peekNewest(host);
      if (newest && isFresh(newest)) return newest;
      fresh.delete(host); // its newest has aged: it is served from the oldest end now
    }
    return undefined;
  }

  function nextOldest(): Entry<T> | undefined {
    for (const host of ready) {
      const oldest = peekOldest(host);
      if (oldest) return oldest;
      requeue(host);
    }
    return undefined;
  }

  /**
   * The next fetch of the first host set aside that has room, taken out of
   * the set (the hosts without room are dropped from it too: a slot freed
   * there puts them back in turn).
   */
  function nextSetAside(): Entry<T> | undefined {
    for (const [account, parked] of parking) {
      for (const host of parked) {
        parked.delete(host);
        if (!hasRoom(host)) continue;
        const newest = peekNewest(host);
        const entry = newest && isFresh(newest) ? newest : peekOldest(host);
        if (entry) return entry;
      }
      parking.delete(account);
      forgetIfIdle(account);
    }
    return undefined;
  }

  function pump(): void {
    if (pumping) return;
    pumping = true;
    try {
      // An account below its share again has its hosts back in turn with the others' at once, not only once
      // nothing else is ready (a backlog of another account's would keep it from them for as long as it lasts).
      if (parking.size > 0) unpark();
      while (inFlight < options.concurrency) {
        let entry = nextFresh() ?? nextOldest() ?? (unpark() ? (nextFresh() ?? nextOldest()) : undefined);
        let overShare = false;
        if (!entry) {
          // Nothing else can start now: a slot left idle would help no one, and another account's fetches
          // behind the set-aside one on its host get nearer their turn.
          entry = nextSetAside();
          overShare = true;
        }
        if (!entry) return;
        if (!overShare && atShare(entry.account)) {
          park(entry.host, entry.account);
          continue;
        }
        entry.state = 'running';
        queued--;
        entry.account.queued--;
        entry.account.inFlight++;
        entry.host.queued--;
        compact(entry.host);
        inFlight++;
        entry.host.inFlight++;
        entry.holdsHost = true;
        requeue(entry.host);
        options.start(entry);
      }
    } finally {
      pumping = false;
    }
  }

  const entryOf = (fetch: QueuedFetch<T>): Entry<T> => {
    if (!(fetch instanceof Entry)) throw new Error('not a fetch of this scheduler');
    return fetch as Entry<T>;
  };

  return {
    schedule(hostName, createdAt, item, accountName) {
      const host = hostNamed(hostName);
      const account = accountNamed(accountName);
      account.queued++;
      const entry = new Entry(host, createdAt, item, account);
      host.arrivals.push(entry);
      host.newest.push(new Ticket(createdAt, entry));
      host.queued++;
      queued++;
      requeue(host);
      pump();
      return entry;
    },
    promote(fetch, newer) {
      const entry = entryOf(fetch);
      if (entry.state !== 'queued' || newer <= entry.createdAt) return;
      entry.createdAt = newer;
      entry.host.newest.push(new Ticket(newer, entry));
      compact(entry.host);
      requeue(entry.host);
      pump();
    },
    moveTo(fetch, hostName, signal) {
      const entry = entryOf(fetch);
      if (entry.state !== 'running' || !entry.holdsHost) throw new Error('only a running fetch with its slot moves');
      const to = hostNamed(hostName);
      if (to === entry.host) return Promise.resolve();
      entry.holdsHost = false;
      release(entry.host);
      entry.host = to;
      if (to.movers.isEmpty() && to.inFlight < options.perHostConcurrency) {
        to.inFlight++;
        entry.holdsHost = true;
        requeue(to);
        pump();
        return Promise.resolve();
      }
      pump();
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const aborted = () => {
          stopMoving(entry);
          pump();
          reject(abortReason(signal));
        };
        const granted = () => {
          entry.moving = undefined;
          signal?.removeEventListener('abort', aborted);
          entry.holdsHost = true;
          resolve();
        };
        entry.moving = granted;
        to.movers.push(granted);
        requeue(to);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    },
    done(fetch) {
      const entry = entryOf(fetch);
      if (entry.state !== 'running') throw new Error(`done with a fetch ${entry.state}`);
      entry.state = 'done';
      inFlight--;
      entry.account.inFlight--;
      forgetIfIdle(entry.account);
      // A fetch whose move was given up, or is still waiting, holds no host slot.
      if (entry.holdsHost) {
        entry.holdsHost = false;
        release(entry.host);
      } else stopMoving(entry);
      pump();
    },
    get inFlight() {
      return inFlight;
    },
    get queued() {
      return queued;
    },
  };
}

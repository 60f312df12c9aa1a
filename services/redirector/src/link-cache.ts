import { LRUCache } from 'lru-cache';

/** What the redirector needs to answer, and later to record a click. */
export interface ResolvedLink {
  slug: string;
  linkId: string;
  accountId: string;
  /** The destination, normalised into a valid Location header value. */
  location: string;
}

export type LookupLink = (slug: string) => Promise<ResolvedLink | null>;

export interface LinkCacheOptions {
  lookup: LookupLink;
  /** Links held in memory. A link never changes, so an entry is valid until evicted. */
  maxEntries: number;
  /** How long an unknown slug is remembered. NOTIFY drops it sooner when the slug is created. */
  negativeTtlMs: number;
  /**
   * Given when links are created in other processes: resolves true once every
   * creation committed before the call has been forgotten here (see
   * `NewLinkListener.catchUp`), false when that cannot be known. A "not found"
   * is answered only after it, so a 201 from another process is never
   * followed by a 404.
   */
  catchUp?: () => Promise<boolean>;
}

const NOT_FOUND = Symbol('not-found');
type Entry = ResolvedLink | typeof NOT_FOUND;

/**
 * The redirect hot path's only state: a bounded LRU of slug → link, with
 * negative entries for unknown slugs (so a scan of random slugs cannot reach the
 * database once per request) and one shared lookup per slug in flight.
 */
export class LinkCache {
  readonly #cache: LRUCache<string, Entry>;
  readonly #inFlight = new Map<string, Promise<ResolvedLink | null>>();
  /** Lookups under way per slug: a confirming lookup may run beside a shared one. */
  readonly #looking = new Map<string, number>();
  /** Slugs created while a lookup of theirs was under way: its miss may be stale. */
  readonly #forgotten = new Set<string>();
  /** Bumped when every miss must be forgotten, so in-flight misses are not cached either. */
  #generation = 0;
  readonly #options: LinkCacheOptions;

  constructor(options: LinkCacheOptions) {
    this.#options = options;
    this.#cache = new LRUCache<string, Entry>({ max: options.maxEntries });
  }

  /** Synchronous when warm: undefined means "not cached, call resolve". */
  peek(slug: string): ResolvedLink | null | undefined {
    const entry = this.#cache.get(slug);
    if (entry === undefined) return undefined;
    return entry === NOT_FOUND ? null : entry;
  }

  /** Warm: a cached link at once. A "not found" is confirmed first when links are created elsewhere. */
  resolve(slug: string): Promise<ResolvedLink | null> {
    const cached = this.peek(slug);
    if (cached) return Promise.resolve(cached);
    const { catchUp } = this.#options;
    const found = cached === null ? Promise.resolve(null) : this.#sharedLookup(slug);
    return catchUp ? found.then((link) => link ?? this.#confirmMiss(slug, catchUp)) : found;
  }

  /*
   * The miss may be older than a creation in another process whose 201 has
   * already reached the client. Once caught up, a miss still remembered is
   * true; otherwise the slug was just created (or caching it was unsafe), and
   * a lookup of our own, started now, sees it.
   */
  async #confirmMiss(slug: string, catchUp: () => Promise<boolean>): Promise<ResolvedLink | null> {
    if (await catchUp()) {
      const now = this.peek(slug);
      if (now !== undefined) return now;
    }
    return this.#lookup(slug);
  }

  #sharedLookup(slug: string): Promise<ResolvedLink | null> {
    let pending = this.#inFlight.get(slug);
    if (!pending) {
      pending = this.#lookup(slug).finally(() => this.#inFlight.delete(slug));
      this.#inFlight.set(slug, pending);
    }
    return pending;
  }

  #lookup(slug: string): Promise<ResolvedLink | null> {
    const generation = this.#generation;
    this.#looking.set(slug, (this.#looking.get(slug) ?? 0) + 1);
    return this.#options
      .lookup(slug)
      .then((link) => {
        // A notification that arrived during the lookup may make a miss stale: do not cache it.
        if (link !== null) this.#cache.set(slug, link);
        else if (generation === this.#generation && !this.#forgotten.has(slug)) {
          this.#cache.set(slug, NOT_FOUND, { ttl: this.#options.negativeTtlMs });
        }
        return link;
      })
      .finally(() => {
        const n = (this.#looking.get(slug) ?? 1) - 1;
        if (n > 0) this.#looking.set(slug, n);
        else {
          this.#looking.delete(slug);
          this.#forgotten.delete(slug);
        }
      });
  }

  /** A slug was just created: drop a remembered "not found". */
  forget(slug: string): void {
    if (this.#cache.get(slug) === NOT_FOUND) this.#cache.delete(slug);
    if (this.#looking.has(slug)) this.#forgotten.add(slug);
  }

  /** Notifications may have been missed (connection lost): drop every negative entry. */
  forgetAllMisses(): void {
    this.#generation++;
    for (const [slug, entry] of this.#cache.entries()) if (entry === NOT_FOUND) this.#cache.delete(slug);
  }

  get size(): number {
    return this.#cache.size;
  }
}

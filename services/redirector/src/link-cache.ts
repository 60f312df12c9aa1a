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
  /** Slugs created while their lookup was in flight: that lookup's miss is already stale. */
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

  resolve(slug: string): Promise<ResolvedLink | null> {
    const cached = this.peek(slug);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.#inFlight.get(slug);
    if (!pending) {
      const generation = this.#generation;
      pending = this.#options.lookup(slug).then(
        (link) => {
          this.#inFlight.delete(slug);
          // A notification that arrived during the lookup may make a miss stale: do not cache it.
          if (link !== null) this.#cache.set(slug, link);
          else if (generation === this.#generation && !this.#forgotten.has(slug)) {
            this.#cache.set(slug, NOT_FOUND, { ttl: this.#options.negativeTtlMs });
          }
          this.#forgotten.delete(slug);
          return link;
        },
        (error: unknown) => {
          this.#inFlight.delete(slug);
          throw error;
        },
      );
      this.#inFlight.set(slug, pending);
    }
    return pending;
  }

  /** A slug was just created: drop a remembered "not found". */
  forget(slug: string): void {
    if (this.#cache.get(slug) === NOT_FOUND) this.#cache.delete(slug);
    if (this.#inFlight.has(slug)) this.#forgotten.add(slug);
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

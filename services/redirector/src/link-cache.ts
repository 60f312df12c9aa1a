import { LRUCache } from 'lru-cache';
import { singleFlightPerKey } from '@shortlink/batching';
import { LinkLru } from './link-lru';
import type { LookupLink, ResolvedLink } from './resolved-link';

export interface LinkCacheOptions {
  lookup: LookupLink;
  /** Links held in memory. An entry is valid until evicted or dropped by a change notification. */
  maxEntries: number;
  /**
   * Unknown slugs remembered, apart from the links, so that a scan of random
   * slugs churns these and never evicts a link. Default: a tenth of maxEntries.
   */
  maxMisses?: number;
  /** How long an unknown slug is remembered. NOTIFY drops it sooner when the slug is created. */
  negativeTtlMs: number;
  /**
   * Given when links are created in other processes: resolves true once every
   * creation committed before the call has been forgotten here (see
   * `LinkListener.catchUp`), false when that cannot be known. A "not found"
   * is answered only after it, so a 201 from another process is never
   * followed by a 404.
   */
  catchUp?: () => Promise<boolean>;
  /**
   * Given when links change in other processes: whether every change
   * committed so far has reached this cache (the change listener holds its
   * lease). While it is false nothing cached is answered without looking the
   * slug up again (see `resolve`). Called on every request: must be cheap.
   */
  trusted?: () => boolean;
  /**
   * Whether the store is held for away (outage-gate.ts): every lookup then
   * waits for the gate's one shared attempt, whatever its slug. A request
   * revalidating a cached link then asks for its own lookup rather than
   * waiting for the end of one of its slug already under way and the next
   * after it, which through a stalled Postgres is two of the gate's attempts
   * and more.
   */
  storeAway?: () => boolean;
}

/**
 * The redirect hot path's only state: a bounded LRU of links (each packed
 * into one string, see link-lru.ts), a smaller one of unknown
 * slugs with a time to live (so a scan of random slugs cannot reach the
 * database once per request) and one shared lookup per slug in flight.
 */
export class LinkCache {
  readonly #links: LinkLru;
  readonly #misses: LRUCache<string, true>;
  /** Per slug, the lookup in flight, and the one that starts once it ends: shared by requests that must not join it. */
  readonly #lookups = singleFlightPerKey<ResolvedLink | null>();
  /** Lookups under way per slug: a confirming lookup may run beside a shared one. */
  readonly #looking = new Map<string, number>();
  /** Slugs created, changed or deleted while a lookup of theirs was under way: its answer may be stale. */
  readonly #forgotten = new Set<string>();
  /** Bumped when everything must be forgotten, so in-flight answers are not cached either. */
  #generation = 0;
  readonly #options: LinkCacheOptions;
  readonly #trusted: () => boolean;
  /** Requests answered from memory (a link or a remembered "not found") and those that had to look up; plain numbers, read at scrape time. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(options: LinkCacheOptions) {
    this.#options = options;
    this.#trusted = options.trusted ?? (() => true);
    this.#links = new LinkLru(options.maxEntries);
    this.#misses = new LRUCache<string, true>({
      max: options.maxMisses ?? Math.max(1, Math.ceil(options.maxEntries / 10)),
      ttl: options.negativeTtlMs,
    });
  }

  /** Synchronous when warm: undefined means "not cached (or not to be trusted now), call resolve". */
  peek(slug: string): ResolvedLink | null | undefined {
    const entry = this.#peekTrusted(slug);
    if (entry === undefined) this.stats.misses++;
    else this.stats.hits++;
    return entry;
  }

  #peekTrusted(slug: string): ResolvedLink | null | undefined {
    if (!this.#trusted()) return undefined;
    return this.#peekRaw(slug);
  }

  #peekRaw(slug: string): ResolvedLink | null | undefined {
    const link = this.#links.get(slug);
    if (link !== undefined) return link;
    return this.#misses.get(slug) ? null : undefined;
  }

  /** Warm: a cached link at once. A "not found" is confirmed first when links are created elsewhere. */
  resolve(slug: string): Promise<ResolvedLink | null> {
    if (!this.#trusted()) return this.#revalidate(slug);
    const cached = this.#peekRaw(slug);
    if (cached) return Promise.resolve(cached);
    const { catchUp } = this.#options;
    const found = cached === null ? Promise.resolve(null) : this.#sharedLookup(slug);
    return catchUp ? found.then((link) => link ?? this.#confirmMiss(slug, catchUp)) : found;
  }

  /*
   * Changes made elsewhere may not have reached this cache (the listener lost
   * its connection or its lease): every answer comes from a lookup that
   * started after the request arrived. Only when Postgres cannot answer at
   * all is a cached link served: a Postgres down for everyone means no link
   * can change meanwhile, and a warm link keeps redirecting through a
   * Postgres restart (docs/decisions/0035-redirector-leases.md names the one case where that is stale).
   */
  #revalidate(slug: string): Promise<ResolvedLink | null> {
    const stale = this.#peekRaw(slug);
    const lookup = stale && this.#options.storeAway?.() ? this.#lookup(slug) : this.#freshLookup(slug);
    return lookup.catch((error: unknown) => {
      if (stale) return stale;
      throw error;
    });
  }

  /*
   * The miss may be older than a creation in another process whose 201 has
   * already reached the client. Once caught up, a miss still remembered is
   * true; otherwise the slug was just created (or caching it was unsafe), and
   * a lookup of our own, started now, sees it.
   */
  async #confirmMiss(slug: string, catchUp: () => Promise<boolean>): Promise<ResolvedLink | null> {
    if (await catchUp()) {
      const now = this.#peekTrusted(slug);
      if (now !== undefined) return now;
    }
    return this.#lookup(slug);
  }

  #sharedLookup(slug: string): Promise<ResolvedLink | null> {
    return this.#lookups.join(slug, () => this.#lookup(slug));
  }

  /** A lookup that starts after the call: the one in flight may have been sent before a change committed. */
  #freshLookup(slug: string): Promise<ResolvedLink | null> {
    return this.#lookups.fresh(slug, () => this.#lookup(slug));
  }

  #lookup(slug: string): Promise<ResolvedLink | null> {
    const generation = this.#generation;
    this.#looking.set(slug, (this.#looking.get(slug) ?? 0) + 1);
    return this.#options
      .lookup(slug)
      .then((link) => {
        // A notification that arrived during the lookup may make its answer stale: do not cache it.
        if (generation === this.#generation && !this.#forgotten.has(slug)) this.#remember(slug, link);
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

  #remember(slug: string, link: ResolvedLink | null): void {
    if (link !== null) {
      this.#misses.delete(slug);
      // Held under the slug asked for; packed, the link keeps a copy of its own (compact-link.ts).
      this.#links.set(link.slug === slug ? link : { ...link, slug });
    } else {
      this.#links.delete(slug);
      this.#misses.set(ownCopy(slug), true);
    }
  }

  /** A slug was just created: drop a remembered "not found". */
  forget(slug: string): void {
    this.#misses.delete(slug);
    if (this.#looking.has(slug)) this.#forgotten.add(slug);
  }

  /**
   * A link changed or was deleted: drop whatever is held for it, and let no
   * lookup already under way answer a later request or fill the cache.
   */
  invalidate(slug: string): void {
    this.#links.delete(slug);
    this.#misses.delete(slug);
    this.#lookups.forget(slug);
    if (this.#looking.has(slug)) this.#forgotten.add(slug);
  }

  /** Changes may have been missed (the listener lost its connection or lease): drop everything. */
  forgetAll(): void {
    this.#generation++;
    this.#links.clear();
    this.#misses.clear();
    this.#lookups.forgetAll();
  }

  /** Creations may have been missed: drop every negative entry. */
  forgetAllMisses(): void {
    this.#generation++;
    this.#misses.clear();
  }

  /** Slugs held: links and unknown ones. */
  get size(): number {
    return this.#links.size + this.#misses.size;
  }
}

/**
 * The slug as a string of its own. A request's slug is cut out of its URL,
 * and a cut of 13 characters or more is a view that keeps the whole URL (its
 * query included) alive for as long as the cache holds the key.
 */
function ownCopy(slug: string): string {
  const copy = Buffer.from(slug, 'utf8').toString('utf8');
  return copy === slug ? copy : slug;
}

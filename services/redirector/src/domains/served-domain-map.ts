import type { ServedDomain } from '@shortlink/postgres';
import { redirectLocation } from '../redirect-location';
import { requestHostname } from './request-hostname';

/** A verified domain as the redirect route uses it: its redirects already serialised as Locations. */
export interface DomainRoutes {
  hostname: string;
  accountId: string;
  /** Where `/` goes; null: the installation's own answer. */
  rootLocation: string | null;
  /** Where a slug the domain does not hold goes; null: the `404` of an unknown slug. */
  notFoundLocation: string | null;
}

export interface ServedDomainMapOptions {
  /** Whether every domain change committed so far has been applied here (the listener holds its lease). */
  trusted: () => boolean;
  /** A fresh read of one hostname, for when the map is not trusted; rejects when Postgres cannot answer. */
  lookup: (hostname: string) => Promise<ServedDomain | null>;
}

const routesOf = (domain: ServedDomain): DomainRoutes => ({
  hostname: domain.hostname,
  accountId: domain.accountId,
  rootLocation: domain.rootRedirect === null ? null : redirectLocation(domain.rootRedirect),
  notFoundLocation: domain.notFoundRedirect === null ? null : redirectLocation(domain.notFoundRedirect),
});

/**
 * Every verified branded domain, by hostname, held whole by each redirector: loaded when its listener is leased and
 * kept by the `domainChanged` notifications, each confirmed once applied, so a deleted domain is gone from every
 * leased redirector before its `204` (decision 0076). A request's `Host` that names none of them is the
 * installation's own, as every request was before domains: with no domain verified that costs one size check.
 */
export class ServedDomainMap {
  readonly #byHostname = new Map<string, DomainRoutes>();
  readonly #options: ServedDomainMapOptions;

  constructor(options: ServedDomainMapOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#byHostname.size;
  }

  /** Everything as Postgres holds it now (the listener's first lease, or its lease again after it was lost). */
  replaceAll(domains: readonly ServedDomain[]): void {
    this.#byHostname.clear();
    for (const domain of domains) this.#byHostname.set(domain.hostname, routesOf(domain));
  }

  /** One hostname as Postgres holds it now: verified (perhaps changed), or not (deleted, or never). */
  apply(hostname: string, domain: ServedDomain | null): void {
    if (domain === null) this.#byHostname.delete(hostname);
    else this.#byHostname.set(hostname, routesOf(domain));
  }

  /**
   * The verified domain a request's `Host` names, as last heard; null for the installation's own. Synchronous: when
   * `trusted()` is false the caller confirms a domain found with `confirm` before answering from it.
   */
  peek(host: string | undefined): DomainRoutes | null {
    if (this.#byHostname.size === 0) return null;
    const hostname = requestHostname(host);
    return hostname === null ? null : (this.#byHostname.get(hostname) ?? null);
  }

  trusted(): boolean {
    return this.#options.trusted();
  }

  /**
   * A domain found while the map is not trusted (a change may have been missed): read again, so a domain deleted
   * meanwhile is not served. Only when Postgres cannot answer is the domain as last heard used, as a cached link is.
   */
  async confirm(domain: DomainRoutes): Promise<DomainRoutes | null> {
    let fresh: ServedDomain | null;
    try {
      fresh = await this.#options.lookup(domain.hostname);
    } catch {
      return domain;
    }
    return fresh === null ? null : routesOf(fresh);
  }
}

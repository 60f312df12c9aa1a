/**
 * A link's key: what makes it one link among all. A slug is unique per domain, so the key is the slug alone for a
 * link on the installation's own domain (every link made before branded domains keeps its key) and `hostname/slug`
 * for a link on a branded domain. A slug never holds `/`, so the two forms cannot meet. Stores and caches are keyed
 * by it (`slug_claims.slug`, `links.slug`, the redirectors' caches and their notifications); events, API answers
 * and ClickHouse rows carry the slug and the domain apart (docs/decisions/0082-a-link-key-per-domain.md).
 */
export function linkKey(domain: string | null | undefined, slug: string): string {
  return domain ? `${domain}/${slug}` : slug;
}

/** A key's slug and domain (null: the installation's own). */
export function linkOfKey(key: string): { domain: string | null; slug: string } {
  const slash = key.lastIndexOf('/');
  return slash === -1 ? { domain: null, slug: key } : { domain: key.slice(0, slash), slug: key.slice(slash + 1) };
}

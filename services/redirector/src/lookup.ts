import type { Pool } from 'pg';
import { groupCommit } from '@shortlink/batching';
import { answerWithin } from '@shortlink/http';
import { findLinkBySlug, findLinksBySlugs, type LinkRecord } from '@shortlink/postgres';
import { compileRouting } from '@shortlink/redirect-rules';
import type { LookupLink, ResolvedLink } from './resolved-link';
import { redirectLocation } from './redirect-location';

/**
 * Misses come in bursts (a redirector starting under traffic, a campaign's new links), and one statement each would
 * queue them on the pool's ten connections. Up to this many lookups are under way at once; the misses arriving
 * meanwhile leave together in one statement when one ends. An idle redirector's miss leaves at once, alone
 * (docs/decisions/0009-cache-misses-share-round-trips.md).
 */
const LOOKUPS_IN_FLIGHT = 4;
const SLUGS_PER_LOOKUP = 100;

/**
 * The longest a redirect waits on one answer from Postgres (a lookup, the outage gate's probe, a catch-up), so a
 * stalled Postgres is an outage like a refusing one: a warm link is served from memory and a miss is answered 503 with
 * Retry-After, well within the entry point's 10 s. A lookup takes milliseconds, so 2 s is no answer
 * (docs/decisions/0026-a-stalled-store-is-an-outage-after-a-bound.md).
 */
export const POSTGRES_ANSWER_MS = 2000;

function resolved(slug: string, link: LinkRecord | null | undefined, visitorSecret: string): ResolvedLink | null {
  if (!link) return null;
  const location = redirectLocation(link.destinationUrl);
  if (location === null) return null;
  const plain = { slug, linkId: link.linkId, accountId: link.accountId, location };
  if (link.routing === null) return plain;
  // Compiled once, as it is cached: a redirect only chooses. A destination the Location cannot carry goes to the link's own.
  const routing = compileRouting(link.routing, {
    linkId: link.linkId,
    secret: visitorSecret,
    location: (url) => redirectLocation(url) ?? location,
  });
  return routing === null ? plain : { ...plain, routing };
}

/**
 * Cache misses go to Postgres: the projection, or a committed claim it has not
 * reached yet. A failed query rejects (it is never taken for "not found").
 * Each lookup is sent after it was asked for (a batch leaves after its last
 * slug joined), so it sees every change committed before the request.
 */
/** `visitorSecret`: the installation's, which seeds each link's variant buckets (sticky across redirectors). */
export function postgresLookup(pool: Pool, visitorSecret: string): LookupLink {
  // The statement's own bound frees its connection and its place among those in flight; the
  // caller's (below) also covers the wait for a connection and for that place.
  const bounded = { readTimeoutMs: POSTGRES_ANSWER_MS };
  const lookUp = groupCommit(
    async (slugs: string[]): Promise<(ResolvedLink | null)[]> => {
      if (slugs.length === 1) {
        // Alone, through the one-slug function, as before batching: a lone miss costs what it did.
        const slug = slugs[0]!;
        return [resolved(slug, await findLinkBySlug(pool, slug, bounded), visitorSecret)];
      }
      const links = await findLinksBySlugs(pool, slugs, bounded);
      return slugs.map((slug) => resolved(slug, links.get(slug), visitorSecret));
    },
    // A failed statement is the store's failure, never one slug's: no slug that
    // Postgres text cannot hold joins a batch (below), so it fails them all alike.
    { maxBatch: SLUGS_PER_LOOKUP, maxInFlight: LOOKUPS_IN_FLIGHT, onFailure: 'fail-all' },
  );
  // A slug with U+0000 names no link (no store can hold it), and sent, would fail its batch.
  return (slug) =>
    slug.includes('\0') ? Promise.resolve(null) : answerWithin(lookUp(slug), POSTGRES_ANSWER_MS, 'Postgres');
}

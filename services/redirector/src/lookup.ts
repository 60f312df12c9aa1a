import type { Pool } from 'pg';
import { groupCommit } from '@shortlink/batching';
import { answerWithin } from '@shortlink/http';
import { findLinkBySlug, findLinksBySlugs, type LinkRecord } from '@shortlink/postgres';
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

function resolved(slug: string, link: LinkRecord | null | undefined): ResolvedLink | null {
  if (!link) return null;
  const location = redirectLocation(link.destinationUrl);
  if (location === null) return null;
  return { slug, linkId: link.linkId, accountId: link.accountId, location };
}

/**
 * Cache misses go to Postgres: the projection, or a committed claim it has not
 * reached yet. A failed query rejects (it is never taken for "not found").
 * Each lookup is sent after it was asked for (a batch leaves after its last
 * slug joined), so it sees every change committed before the request.
 */
export function postgresLookup(pool: Pool): LookupLink {
  // The statement's own bound frees its connection and its place among those in flight; the
  // caller's (below) also covers the wait for a connection and for that place.
  const bounded = { readTimeoutMs: POSTGRES_ANSWER_MS };
  const lookUp = groupCommit(
    async (slugs: string[]): Promise<(ResolvedLink | null)[]> => {
      if (slugs.length === 1) {
        // Alone, through the one-slug function, as before batching: a lone miss costs what it did.
        const slug = slugs[0]!;
        return [resolved(slug, await findLinkBySlug(pool, slug, bounded))];
      }
      const links = await findLinksBySlugs(pool, slugs, bounded);
      return slugs.map((slug) => resolved(slug, links.get(slug)));
    },
    // A failed statement is the store's failure, never one slug's: no slug that
    // Postgres text cannot hold joins a batch (below), so it fails them all alike.
    { maxBatch: SLUGS_PER_LOOKUP, maxInFlight: LOOKUPS_IN_FLIGHT, onFailure: 'fail-all' },
  );
  // A slug with U+0000 names no link (no store can hold it), and sent, would fail its batch.
  return (slug) =>
    slug.includes('\0') ? Promise.resolve(null) : answerWithin(lookUp(slug), POSTGRES_ANSWER_MS, 'Postgres');
}

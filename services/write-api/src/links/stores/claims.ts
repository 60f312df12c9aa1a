import type { Pool } from 'pg';
import { groupCommit } from '@shortlink/batching';
import type { LinkRouting } from '@shortlink/events';
import { commitSlugClaims, type ClaimRef } from '@shortlink/postgres';

export interface Claim {
  slug: string;
  linkId: string;
  accountId: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: Date;
  /** Its rules and variants; null (or absent) when it has none. */
  routing?: LinkRouting | null;
  /**
   * Made under an Idempotency-Key: a retry of the request knows its link id
   * and may be finishing it (findOwn). Otherwise no one but its own attempt
   * ever can.
   */
  resumable?: boolean;
}

/** A claim found by its link id: what an earlier attempt at the same request took. */
export interface OwnClaim {
  slug: string;
  linkId: string;
  state: 'pending' | 'committed';
  createdAt: Date;
}

/**
 * The write model's slug claims (table `slug_claims`). The primary key on slug
 * decides every race: of any number of concurrent claims, across any number of
 * processes, exactly one inserts.
 */
export interface ClaimStore {
  /** True when this claim now holds the slug; false when another does. */
  claim(claim: Claim): Promise<boolean>;
  /** Marks a claim whose LinkCreated is durably in Kafka. */
  commit(slug: string, linkId: string): Promise<void>;
  /** Several claims in one statement (a bulk create); each settles as `claim` would. */
  claimAll(claims: readonly Claim[]): Promise<boolean>[];
  /** Several commits in one statement; each settles as `commit` would. */
  commitAll(refs: readonly ClaimRef[]): Promise<void>[];
  /**
   * The claims of these link ids, if any. A pending one is dated anew, so the
   * claim settler leaves it to the attempt that is finishing it.
   */
  findOwn(linkIds: readonly string[]): Promise<OwnClaim[]>;
}

/** The Postgres claim store, which can also give back a claim its create abandoned. */
export interface PostgresClaimStore extends ClaimStore {
  /**
   * Frees a claim still pending whose create was answered (503) before its
   * LinkCreated was appended, and never will be: only such a claim's own
   * attempt may call it, and only for a claim no retry can take up (not
   * `resumable`). The claim settler would free it too, a minute or more later.
   */
  releaseAbandoned(ref: ClaimRef): Promise<void>;
}

/**
 * A batch is one statement: it writes all its rows or none, so when one row
 * fails it (a value Postgres refuses) each claim is tried again on its own.
 * Claims of different slugs do not wait on one another, so a few statements
 * run side by side: a bulk import is not held to one round trip at a time.
 */
const ONE_STATEMENT = { maxBatch: 500, onFailure: 'retry-alone', maxInFlight: 3 } as const;

export function postgresClaimStore(pool: Pool): PostgresClaimStore {
  // Concurrent creates share their statements (and WAL flushes): the claims
  // waiting while one INSERT runs go in the next, and likewise the commits.
  const claim = groupCommit(async (claims: Claim[]) => {
    // Two claims of one slug in the same INSERT: the first row wins, the second
    // does nothing, as between separate statements. The winner is told by its link id.
    // Rows go in slug order, so two statements side by side that share slugs
    // wait on each other rather than deadlock.
    const { rows } = await pool.query<{ link_id: string }>(
      `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, routing, state)
       SELECT slug, link_id, account_id, destination_url, tag, created_at, routing, 'pending'
         FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[])
           WITH ORDINALITY AS c(slug, link_id, account_id, destination_url, tag, created_at, routing, n)
        ORDER BY slug, n
       ON CONFLICT (slug) DO NOTHING
       RETURNING link_id`,
      [
        claims.map((c) => c.slug),
        claims.map((c) => c.linkId),
        claims.map((c) => c.accountId),
        claims.map((c) => c.destinationUrl),
        claims.map((c) => c.tag),
        claims.map((c) => c.createdAt),
        claims.map((c) => (c.routing ? JSON.stringify(c.routing) : null)),
      ],
    );
    const won = new Set(rows.map((r) => r.link_id));
    return claims.map((c) => won.has(c.linkId));
  }, ONE_STATEMENT);
  const commit = groupCommit(async (claims: ClaimRef[]) => {
    await commitSlugClaims(pool, claims);
    return claims.map(() => undefined);
  }, ONE_STATEMENT);
  return {
    claim,
    commit: (slug, linkId) => commit({ slug, linkId }),
    claimAll: (claims) => claim.all(claims),
    commitAll: (refs) => commit.all(refs),
    async releaseAbandoned({ slug, linkId }) {
      await pool.query(`DELETE FROM slug_claims WHERE slug = $1 AND link_id = $2 AND state = 'pending'`, [
        slug,
        linkId,
      ]);
    },
    async findOwn(linkIds) {
      if (linkIds.length === 0) return [];
      const { rows } = await pool.query<{ slug: string; link_id: string; state: OwnClaim['state']; created_at: Date }>(
        `WITH renewed AS (
           UPDATE slug_claims SET claimed_at = now() WHERE link_id = ANY($1::uuid[]) AND state = 'pending'
         )
         SELECT slug, link_id, state, created_at FROM slug_claims WHERE link_id = ANY($1::uuid[])`,
        [linkIds],
      );
      return rows.map((r) => ({ slug: r.slug, linkId: r.link_id, state: r.state, createdAt: new Date(r.created_at) }));
    },
  };
}

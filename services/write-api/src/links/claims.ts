import type { Pool } from 'pg';
import { commitSlugClaim } from '@shortlink/postgres';

export interface Claim {
  slug: string;
  linkId: string;
  accountId: string;
  destinationUrl: string;
  tag: string | null;
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
}

export function postgresClaimStore(pool: Pool): ClaimStore {
  return {
    async claim(c) {
      const result = await pool.query(
        `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, state)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending')
         ON CONFLICT (slug) DO NOTHING`,
        [c.slug, c.linkId, c.accountId, c.destinationUrl, c.tag, c.createdAt],
      );
      return result.rowCount === 1;
    },
    async commit(slug, linkId) {
      await commitSlugClaim(pool, slug, linkId);
    },
  };
}

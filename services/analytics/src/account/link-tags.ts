import type { Pool } from 'pg';
import type { TaggedLinks } from './account-stats';

/**
 * The account's links that carry a tag now, by tag: deleted links too, under
 * their last tag, as their clicks stay in the account's figures. One index
 * range of the account's links (links_account).
 */
export async function readTaggedLinks(pool: Pool, accountId: string): Promise<TaggedLinks> {
  const { rows } = await pool.query<{ link_id: string; tag: string }>(
    'SELECT link_id, tag FROM links WHERE account_id = $1 AND tag IS NOT NULL',
    [accountId],
  );
  const tagged = new Map<string, string[]>();
  for (const { link_id: linkId, tag } of rows) {
    const links = tagged.get(tag);
    if (links) links.push(linkId);
    else tagged.set(tag, [linkId]);
  }
  return tagged;
}

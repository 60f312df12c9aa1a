import { createHash } from 'node:crypto';

/**
 * The cold-cache part's links: `z-0` … `z-{n-1}`, their destinations as
 * varied as real ones (five hosts, a 32-character path, a campaign in the
 * query). `LINKS_SQL` makes the same rows in Postgres that `slugOf` and
 * `destinationOf` describe here.
 */
export const SLUG_PREFIX = 'z-';

export const slugOf = (i: number): string => `${SLUG_PREFIX}${i}`;

const HOSTS = ['shop', 'blog', 'docs', 'news', 'www'];

export const destinationOf = (i: number): string =>
  `https://${HOSTS[i % 5]}.example.com/${createHash('md5').update(String(i)).digest('hex')}?utm_campaign=c${i % 97}`;

/** Any account: the memory measurement only needs an id of the right shape. */
export const COLD_CACHE_ACCOUNT = '6f1d2c3b-4a59-4e6f-8071-92a3b4c5d6e7';

/**
 * Links $2 … $2+$3-1 of account $1, committed claims and their projection
 * (as the link projector fills it) in one statement; `list_seq` given, as the
 * commit trigger would.
 */
export const LINKS_SQL = `
  WITH claims AS (
    INSERT INTO slug_claims (slug, link_id, account_id, destination_url, created_at, state, list_seq)
    SELECT '${SLUG_PREFIX}' || i, gen_random_uuid(), $1,
           'https://' || (ARRAY['${HOSTS.join("', '")}'])[1 + i % 5] || '.example.com/' || md5(i::text)
             || '?utm_campaign=c' || (i % 97),
           now() - make_interval(secs => 100000000 - i), 'committed', i + 1
      FROM generate_series($2::int, $2::int + $3::int - 1) AS i
    RETURNING slug, link_id, account_id, destination_url, created_at, list_seq
  )
  INSERT INTO links (slug, link_id, account_id, destination_url, created_at, event_id, source_partition, source_offset)
  SELECT slug, link_id, account_id, destination_url, created_at, gen_random_uuid(), 0, list_seq FROM claims`;

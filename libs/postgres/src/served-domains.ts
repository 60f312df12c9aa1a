import type { Client, Pool } from 'pg';
import { withReadTimeout, type ReadOptions } from './links';

/** A verified branded domain as a redirector serves it (migration 0019's `domains`, decision 0076). */
export interface ServedDomain {
  /** As `normaliseHostname` stores it: ASCII, lower case, no trailing dot. */
  hostname: string;
  accountId: string;
  /** Where `/` on the domain goes; null: the installation's own answer. */
  rootRedirect: string | null;
  /** Where a slug the domain does not hold goes; null: the `404` of an unknown slug. */
  notFoundRedirect: string | null;
}

interface Row {
  hostname: string;
  account_id: string;
  root_redirect: string | null;
  not_found_redirect: string | null;
}

const SELECT =
  'SELECT hostname, account_id, root_redirect, not_found_redirect FROM domains WHERE verified_at IS NOT NULL';

const served = (row: Row): ServedDomain => ({
  hostname: row.hostname,
  accountId: row.account_id,
  rootRedirect: row.root_redirect,
  notFoundRedirect: row.not_found_redirect,
});

/** Every verified domain: a redirector holds them all (an installation has thousands at the most). */
export async function servedDomains(db: Pool | Client): Promise<ServedDomain[]> {
  const { rows } = await db.query<Row>(SELECT);
  return rows.map(served);
}

/** The verified domain of a hostname (one at most: `domains_verified_once`), or null. */
export async function servedDomain(
  db: Pool | Client,
  hostname: string,
  options: ReadOptions = {},
): Promise<ServedDomain | null> {
  const { rows } = await db.query<Row>(
    withReadTimeout({ text: `${SELECT} AND hostname = $1`, values: [hostname] }, options),
  );
  return rows[0] ? served(rows[0]) : null;
}

/** Which of these hostnames the account has verified: where its links may go. */
export async function verifiedHostnames(
  db: Pool | Client,
  accountId: string,
  hostnames: readonly string[],
  options: ReadOptions = {},
): Promise<Set<string>> {
  const { rows } = await db.query<{ hostname: string }>(
    withReadTimeout(
      {
        text: 'SELECT hostname FROM domains WHERE account_id = $1 AND hostname = ANY($2::text[]) AND verified_at IS NOT NULL',
        values: [accountId, hostnames],
      },
      options,
    ),
  );
  return new Set(rows.map((r) => r.hostname));
}

import type { Client, Pool } from 'pg';

/**
 * How long a redirector's listening connection is trusted without renewing.
 * It is also the longest a link change waits for a redirector that stopped
 * answering (killed, frozen or cut off from Postgres), so it is short.
 */
export const REDIRECTOR_LEASE_MS = 3000;

/** Takes or renews a listener's lease, measured on Postgres's clock from the statement's start. */
export async function renewRedirectorLease(client: Client, listenerId: string, leaseMs: number): Promise<void> {
  await client.query(
    `INSERT INTO redirector_leases (listener_id, expires_at)
     VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
     ON CONFLICT (listener_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    [listenerId, leaseMs],
  );
}

/** A clean stop: nobody waits for this listener any more. Long-expired leases of others go too. */
export async function releaseRedirectorLease(client: Client, listenerId: string): Promise<void> {
  await client.query(`DELETE FROM redirector_leases WHERE listener_id = $1 OR expires_at < now() - interval '1 hour'`, [
    listenerId,
  ]);
}

export interface LiveLease {
  listenerId: string;
  /** Milliseconds left on Postgres's clock when read. */
  remainingMs: number;
}

/** The listeners whose lease runs now: the redirectors a change must wait for. */
export async function liveRedirectorLeases(db: Pool | Client): Promise<LiveLease[]> {
  const { rows } = await db.query<{ listener_id: string; remaining_ms: number }>(
    `SELECT listener_id, ceil(extract(epoch FROM expires_at - now()) * 1000)::float8 AS remaining_ms
       FROM redirector_leases WHERE expires_at > now()`,
  );
  return rows.map((r) => ({ listenerId: r.listener_id, remainingMs: r.remaining_ms }));
}

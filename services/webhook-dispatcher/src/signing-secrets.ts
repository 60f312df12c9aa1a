import { LRUCache } from 'lru-cache';
import type { Queryable } from './delivery-queue';

/** A stored (sealed) secret made usable again: its `whsec_…` text (libs/webhooks' unsealing, under the key). */
export type Unseal = (sealed: string) => Promise<string>;

/**
 * Each endpoint's signing secrets, newest first: the current one, and the one
 * before it while its rotation's 24 hours run. Read for many endpoints in one
 * query and kept `ttlMs`, so a rotation signs with the new secret that much
 * later at most.
 */
export function createSigningSecrets(
  db: Queryable,
  unseal: Unseal,
  ttlMs: number,
): (webhookIds: readonly string[]) => Promise<ReadonlyMap<string, readonly string[]>> {
  const cache = new LRUCache<string, readonly string[]>({ max: 100_000, ttl: ttlMs });
  return async (webhookIds) => {
    const found = new Map<string, readonly string[]>();
    const missing = webhookIds.filter((id) => {
      const known = cache.get(id);
      if (known) found.set(id, known);
      return !known;
    });
    if (missing.length === 0) return found;
    const { rows } = await db.query<{ webhook_id: string; sealed: string }>(
      `SELECT webhook_id, sealed FROM webhook_secrets
        WHERE webhook_id = ANY($1::uuid[]) AND (expires_at IS NULL OR expires_at > now())
        ORDER BY webhook_id, created_at DESC`,
      [missing],
    );
    const byHook = new Map<string, string[]>(missing.map((id) => [id, []]));
    for (const row of rows) {
      // A secret that cannot be unsealed (another instance's key) is left out: that endpoint's attempts fail alone.
      const secret = await unseal(row.sealed).catch(() => undefined);
      if (secret !== undefined) byHook.get(row.webhook_id)?.push(secret);
    }
    for (const [id, secrets] of byHook) {
      // An endpoint without a secret is not kept: it is asked again at its next attempt.
      if (secrets.length > 0) cache.set(id, secrets);
      found.set(id, secrets);
    }
    return found;
  };
}

import { LRUCache } from 'lru-cache';
import type { Queryable } from './delivery-queue';
import type { WebhookEventType } from '@shortlink/webhooks';

/** An enabled endpoint of an account and the event types it asked for. */
export interface Subscriber {
  webhookId: string;
  events: ReadonlySet<string>;
  /** Only what happened after it was created reaches it (older events: a replay). */
  createdAt: Date;
}

export type Subscribers = (accountIds: readonly string[]) => Promise<ReadonlyMap<string, readonly Subscriber[]>>;

/** The endpoints of one account that take a message: of its type, and created before its event happened. */
export function subscribedTo(
  subscribers: readonly Subscriber[] | undefined,
  message: { type: WebhookEventType; occurredAt: string },
): string[] {
  const at = Date.parse(message.occurredAt);
  return (subscribers ?? [])
    .filter((s) => s.events.has(message.type) && s.createdAt.getTime() <= at)
    .map((s) => s.webhookId);
}

export interface SubscriptionsOptions {
  /** How long an account's endpoints are reused: a new or changed endpoint is seen this much later at most. */
  ttlMs: number;
  /** Accounts kept, at most. */
  maxAccounts: number;
}

/**
 * Each account's enabled endpoints, read for many accounts in one query and
 * kept briefly: the accounts without any (most) cost nothing per event.
 */
export function createSubscriptions(db: Queryable, options: SubscriptionsOptions): Subscribers {
  const cache = new LRUCache<string, readonly Subscriber[]>({ max: options.maxAccounts, ttl: options.ttlMs });
  return async (accountIds) => {
    const found = new Map<string, readonly Subscriber[]>();
    const missing: string[] = [];
    for (const id of new Set(accountIds)) {
      const known = cache.get(id);
      if (known) found.set(id, known);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const { rows } = await db.query<{ account_id: string; webhook_id: string; events: string[]; created_at: Date }>(
      `SELECT account_id, webhook_id, events, created_at FROM webhooks WHERE enabled AND account_id = ANY($1::uuid[])`,
      [missing],
    );
    const byAccount = new Map<string, Subscriber[]>(missing.map((id) => [id, []]));
    for (const row of rows)
      byAccount
        .get(row.account_id)
        ?.push({ webhookId: row.webhook_id, events: new Set(row.events), createdAt: row.created_at });
    for (const [id, subscribers] of byAccount) {
      cache.set(id, subscribers);
      found.set(id, subscribers);
    }
    return found;
  };
}

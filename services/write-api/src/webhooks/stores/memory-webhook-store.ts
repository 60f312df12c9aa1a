import type { ReplayRecord, QueuedMessage, StoredAttempt, StoredWebhook, WebhookStore } from './webhook-store';

/**
 * The webhook tables in memory, keeping the Postgres store's rules (each read
 * and change names its account, the bound per account, rotation's overlap):
 * for the routes' tests, and for anyone composing the write API without Postgres.
 */
export function memoryWebhookStore(clock: () => Date = () => new Date()) {
  const webhooks = new Map<string, StoredWebhook>();
  const secrets: { webhookId: string; sealed: string; createdAt: Date; expiresAt: Date | null }[] = [];
  const deliveries: (QueuedMessage & { webhookId: string })[] = [];
  const attempts: (StoredAttempt & { webhookId: string })[] = [];
  const replays: (ReplayRecord & { webhookId: string })[] = [];
  let created = 0n;
  const own = (accountId: string, id: string) => {
    const w = webhooks.get(id);
    return w?.accountId === accountId ? w : null;
  };
  const store: WebhookStore = {
    async create(webhook, sealed, max) {
      if ([...webhooks.values()].filter((w) => w.accountId === webhook.accountId).length >= max) return 'limit_reached';
      const row: StoredWebhook = {
        ...webhook,
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        updatedAt: null,
        // Distinct, in creation order, as Postgres's microseconds are.
        createdAtMicros: BigInt(webhook.createdAt.getTime()) * 1000n + created++,
      };
      webhooks.set(webhook.webhookId, row);
      secrets.push({ webhookId: webhook.webhookId, sealed, createdAt: clock(), expiresAt: null });
      return { ...row };
    },
    async list(accountId, page) {
      return [...webhooks.values()]
        .filter((w) => w.accountId === accountId)
        .sort((a, b) =>
          a.createdAtMicros === b.createdAtMicros
            ? a.webhookId < b.webhookId
              ? 1
              : -1
            : a.createdAtMicros < b.createdAtMicros
              ? 1
              : -1,
        )
        .filter(
          (w) =>
            page.after === undefined ||
            w.createdAtMicros < page.after.createdAtMicros ||
            (w.createdAtMicros === page.after.createdAtMicros && w.webhookId < page.after.webhookId),
        )
        .slice(0, page.limit)
        .map((w) => ({ ...w }));
    },
    async find(accountId, id) {
      const w = own(accountId, id);
      return w ? { ...w } : null;
    },
    async update(accountId, id, changes, now) {
      const w = own(accountId, id);
      if (!w) return null;
      if (changes.url !== undefined) w.url = changes.url;
      if (changes.events !== undefined) w.events = changes.events;
      if (changes.description !== undefined) w.description = changes.description;
      if (changes.enabled === true) Object.assign(w, { enabled: true, disabledReason: null, disabledAt: null });
      if (changes.enabled === false && w.enabled)
        Object.assign(w, { enabled: false, disabledReason: 'user', disabledAt: now });
      w.updatedAt = now;
      return { ...w };
    },
    async remove(accountId, id) {
      return own(accountId, id) !== null && webhooks.delete(id);
    },
    async rotateSecret(accountId, id, sealed, overlapHours) {
      if (!own(accountId, id)) return null;
      const now = clock();
      let previousExpiresAt: Date | null = null;
      for (const s of secrets.filter((s) => s.webhookId === id)) {
        if (s.expiresAt === null) {
          s.expiresAt = new Date(now.getTime() + overlapHours * 3_600_000);
          previousExpiresAt = s.expiresAt;
        } else if (s.expiresAt > now) s.expiresAt = now;
      }
      secrets.push({ webhookId: id, sealed, createdAt: now, expiresAt: null });
      return { previousExpiresAt };
    },
    async enqueue(webhookId, message) {
      deliveries.push({ webhookId, ...message });
    },
    async attempts(webhookId, page, since) {
      return attempts
        .filter(
          (a) =>
            a.webhookId === webhookId &&
            a.attemptedAt >= since &&
            (page.after === undefined || a.attemptId < page.after),
        )
        .sort((a, b) => (a.attemptId < b.attemptId ? 1 : -1))
        .slice(0, page.limit);
    },
    async requestReplay(webhookId, replay) {
      replays.push({ webhookId, ...replay });
    },
  };
  return { store, webhooks, secrets, deliveries, attempts, replays };
}

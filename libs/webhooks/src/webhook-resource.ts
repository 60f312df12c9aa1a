import type { WebhookEventType } from './event-types';
import type { Webhook } from './webhook-schema';

/** A webhook as the table `webhooks` holds it. */
export interface WebhookRow {
  webhookId: string;
  accountId: string;
  url: string;
  events: readonly WebhookEventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: 'user' | 'gone' | 'failing' | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** The one place a Webhook object is built. */
export function webhookResource(row: WebhookRow): Webhook {
  return {
    id: row.webhookId,
    url: row.url,
    events: [...row.events],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.enabled ? null : row.disabledReason,
    disabledAt: row.enabled ? null : (row.disabledAt?.toISOString() ?? null),
    createdAt: row.createdAt.toISOString(),
    updatedAt: (row.updatedAt ?? row.createdAt).toISOString(),
  };
}

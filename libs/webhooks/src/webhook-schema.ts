import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_MESSAGE_TYPES } from './event-types';
import { WEBHOOK_LIMITS } from './webhook-limits';

/**
 * The Webhook resource as every endpoint shows it, once as zod: the response
 * schemas of the API document (and fastify's serialisation) are made from it
 * (`z.toJSONSchema`), and tests parse answers with it.
 */
const isoMillis = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .meta({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

export const webhookSchema = z.strictObject({
  id: z.uuid().meta({ description: 'The webhook’s identifier; it never changes.' }),
  url: z.string().meta({ description: 'Where deliveries are sent (`POST`).' }),
  events: z
    .array(webhookEventTypeSchema)
    .min(1)
    .meta({ description: 'The event types delivered to it; `webhook.test` is sent only when asked for.' }),
  description: z
    .string()
    .max(WEBHOOK_LIMITS.descriptionMaxLength)
    .nullable()
    .meta({ description: 'Your note about it, or null.' }),
  enabled: z.boolean().meta({ description: 'False: nothing is delivered to it (see `disabledReason`).' }),
  disabledReason: z.enum(['user', 'gone', 'failing']).nullable().meta({
    description:
      'Why it is disabled: `user` (you set `enabled: false`), `gone` (it answered `410 Gone`), `failing` (every attempt failed for 24 hours); null while enabled.',
  }),
  disabledAt: isoMillis.nullable().meta({ description: 'When it was disabled; null while enabled.' }),
  createdAt: isoMillis,
  updatedAt: isoMillis.meta({ description: 'When it last changed; equal to `createdAt` until then.' }),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** The answer of a create: the webhook and its signing secret, shown this once. */
export const createdWebhookSchema = webhookSchema.extend({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
    .meta({
      description:
        'The signing secret (`whsec_` and base64 of 32 bytes), shown only in this answer: keep it to verify deliveries.',
    }),
});

export const rotatedSecretSchema = z.strictObject({
  secret: createdWebhookSchema.shape.secret,
  previousSecretExpiresAt: isoMillis
    .nullable()
    .meta({ description: 'Until then deliveries are signed with the previous secret too; null if there was none.' }),
});

export const deliveryAttemptSchema = z.strictObject({
  messageId: z.string().meta({
    description: 'The `webhook-id` header: the event’s id (`msg_…` for a test), the same on every attempt and replay.',
  }),
  eventType: z.enum(WEBHOOK_MESSAGE_TYPES),
  attempt: z.int().min(1).meta({ description: 'The attempt’s number for this message, from 1.' }),
  replay: z.boolean().meta({ description: 'True when the message was sent again by a replay.' }),
  attemptedAt: isoMillis,
  responseStatus: z.int().nullable().meta({ description: 'The endpoint’s HTTP status, or null when it gave none.' }),
  error: z
    .string()
    .nullable()
    .meta({ description: 'Why there was no status (timeout, connection refused, refused address…), or null.' }),
  latencyMs: z.int().min(0).meta({ description: 'Milliseconds from the request to its answer or failure.' }),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

export const replaySchema = z.strictObject({
  replayId: z.uuid(),
  webhookId: z.uuid(),
  since: isoMillis,
  until: isoMillis.nullable().meta({ description: 'Null: up to where the log stood when the replay was asked for.' }),
  events: z.array(webhookEventTypeSchema).min(1),
  requestedAt: isoMillis,
});

/** A zod schema as the API document and fastify's response serialiser take it (JSON Schema 2020-12). */
export function responseSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'output' });
  return json;
}

export const WEBHOOK_EXAMPLE: Webhook = {
  id: '5b1c7c2e-8f0a-4a52-9a57-0c6a3b3a9d11',
  url: 'https://hooks.example.com/shortlink',
  events: ['link.created', 'link.clicked'],
  description: 'CRM sync',
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  createdAt: '2026-11-21T09:30:00.000Z',
  updatedAt: '2026-11-21T09:30:00.000Z',
};

import { z } from 'zod';

/** `YYYY-MM-DDTHH:MM:SS.sssZ`, the one timestamp shape used on the wire. */
export const isoUtcMillis = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'expected YYYY-MM-DDTHH:MM:SS.sssZ')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a real instant')
  // The published JSON Schema cannot run the refinement; RFC 3339's date-time says the same.
  .meta({ format: 'date-time' });

/**
 * Every event on every topic is wrapped in the same envelope. `eventId` is what
 * consumers deduplicate on; `schemaVersion` lets a consumer refuse (dead-letter)
 * a shape it does not know instead of misreading it.
 */
export const envelope = z.object({
  eventId: z.uuid(),
  type: z.string().min(1),
  schemaVersion: z.number().int().min(1),
  occurredAt: isoUtcMillis,
  data: z.object({}),
});

/** The envelope of one type and version of event, around its `data`. */
export function envelopeOf<T extends string, V extends number, D extends z.ZodType>(
  type: T,
  schemaVersion: V,
  data: D,
) {
  return envelope.extend({ type: z.literal(type), schemaVersion: z.literal(schemaVersion), data });
}

export interface EventMeta {
  eventId: string;
  occurredAt: string;
}

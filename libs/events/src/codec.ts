import type { z } from 'zod';
import type { EventMeta } from './envelope';

type AnyEnvelope = { type: string; schemaVersion: number; data: unknown } & EventMeta;

/**
 * Builds an event with the id and clock supplied by the caller, so that
 * decision code stays pure and tests can pin time.
 */
export function createEvent<E extends AnyEnvelope>(
  type: E['type'],
  schemaVersion: E['schemaVersion'],
  data: E['data'],
  meta: EventMeta,
): E {
  return { eventId: meta.eventId, type, schemaVersion, occurredAt: meta.occurredAt, data } as E;
}

export function encodeEvent(event: AnyEnvelope): Buffer {
  return Buffer.from(JSON.stringify(event), 'utf8');
}

export type DecodeResult<T> =
  { ok: true; event: T } | { ok: false; reason: 'invalid-json' | 'invalid-event'; detail: string };

/**
 * Parses bytes from a topic against a schema. Never throws: a consumer decides
 * what a bad message means (usually: dead-letter it and move on).
 */
export function decodeEvent<S extends z.ZodType>(schema: S, bytes: Buffer | string | null): DecodeResult<z.infer<S>> {
  if (bytes === null) return { ok: false, reason: 'invalid-json', detail: 'empty message value' };
  let json: unknown;
  try {
    json = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch (e) {
    return { ok: false, reason: 'invalid-json', detail: (e as Error).message };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'invalid-event',
      detail: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, event: parsed.data };
}

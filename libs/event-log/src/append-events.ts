import { encodeEvent, type EventMeta } from '@shortlink/events';
import type { LogProducer } from './log-client';

type Envelope = { type: string; schemaVersion: number; data: unknown } & EventMeta;

/**
 * Headers every record carries, whatever its topic, so consumers can route or
 * skip without parsing the value: its events' type, and the event id (a
 * record of one event) or the number of events (a record of the clicks
 * topic, which holds several).
 */
export const EVENT_HEADERS = { type: 'event-type', id: 'event-id', count: 'event-count' } as const;

export interface AppendOptions {
  /** How long the broker may take to acknowledge, in ms. */
  timeoutMs?: number;
}

/**
 * The one way events are appended: the envelope as JSON, the key its topic is
 * partitioned by, the same headers on every event, and `acks=all` (resolved
 * only once every in-sync replica has the batch). Events must be parsed
 * before they get here; one produce request may carry many.
 */
export async function appendEvents<E extends Envelope>(
  producer: LogProducer,
  topic: string,
  events: readonly E[],
  keyOf: (event: E) => string,
  options: AppendOptions = {},
): Promise<void> {
  await producer.append(
    topic,
    events.map((event) => ({
      key: keyOf(event),
      value: encodeEvent(event),
      headers: { [EVENT_HEADERS.type]: event.type, [EVENT_HEADERS.id]: event.eventId },
    })),
    options,
  );
}

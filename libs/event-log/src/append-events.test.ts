import { randomUUID } from 'node:crypto';
import { createEvent, decodeEvent, clickRecorded, type ClickRecorded } from '@shortlink/events';
import { appendEvents } from './append-events';
import type { LogProducer, OutgoingRecord } from './log-client';

/** A producer that keeps what it is asked to send: the helper's output is the subject here. */
function recordingProducer() {
  const sent: { topic: string; records: readonly OutgoingRecord[]; options?: { timeoutMs?: number } }[] = [];
  const producer: LogProducer = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    append: async (topic, records, options) => void sent.push({ topic, records, options }),
  };
  return { producer, sent };
}

const click = (n: number): ClickRecorded =>
  createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: randomUUID(),
      accountId: randomUUID(),
      slug: 'abc12',
      clickedAt: 1_700_000_000_000 + n,
      visitorHash: 'a'.repeat(64),
      referrer: 'Direct',
      country: 'XX',
      userAgent: 'Mozilla/5.0',
    },
    { eventId: randomUUID(), occurredAt: new Date(1_700_000_000_000 + n).toISOString() },
  );

describe('appendEvents', () => {
  it('sends every event keyed, as its JSON envelope, with the same headers, in one append', async () => {
    const { producer, sent } = recordingProducer();
    const events = [click(1), click(2)];
    await appendEvents(producer, 'shortlink.clicks.v1', events, (e) => e.data.linkId, { timeoutMs: 5000 });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request).toMatchObject({ topic: 'shortlink.clicks.v1', options: { timeoutMs: 5000 } });
    request!.records.forEach((message, i) => {
      const event = events[i]!;
      expect(message.key).toBe(event.data.linkId);
      expect(message.headers).toEqual({ 'event-type': 'ClickRecorded', 'event-id': event.eventId });
      expect(decodeEvent(clickRecorded, message.value as Buffer)).toEqual({ ok: true, event });
    });
  });
});

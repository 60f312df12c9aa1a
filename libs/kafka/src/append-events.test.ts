import { randomUUID } from 'node:crypto';
import { createEvent, decodeEvent, clickRecorded, type ClickRecorded } from '@shortlink/events';
import { appendEvents } from './append-events';
import type { LogProducer } from './log-client';

/** A producer that keeps what it is asked to send: the helper's output is the subject here. */
function recordingProducer() {
  const sent: Parameters<LogProducer['send']>[0][] = [];
  const producer = { send: async (record: Parameters<LogProducer['send']>[0]) => void sent.push(record) };
  return { producer: producer as unknown as LogProducer, sent };
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
  it('sends every event keyed, as its JSON envelope, with the same headers, acks=all', async () => {
    const { producer, sent } = recordingProducer();
    const events = [click(1), click(2)];
    await appendEvents(producer, 'shortlink.clicks.v1', events, (e) => e.data.linkId, { timeoutMs: 5000 });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request).toMatchObject({ topic: 'shortlink.clicks.v1', acks: -1, timeout: 5000 });
    request!.messages.forEach((message, i) => {
      const event = events[i]!;
      expect(message.key).toBe(event.data.linkId);
      expect(message.headers).toEqual({ 'event-type': 'ClickRecorded', 'event-id': event.eventId });
      expect(decodeEvent(clickRecorded, message.value as Buffer)).toEqual({ ok: true, event });
    });
  });
});

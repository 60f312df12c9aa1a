import { randomUUID } from 'node:crypto';
import { createEvent, encodeClickRecord, encodeEvent, type ClickRecorded, type LinkCreated } from '@shortlink/events';
import { ReplayClicks, replayedLinkMessage, type ReplayWindow } from './replay-selection';

const A = randomUUID();
const B = randomUUID();
const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute)).toISOString();
const window: ReplayWindow = {
  accountId: A,
  types: new Set(['link.created', 'link.clicked']),
  sinceMs: Date.parse(at(0)),
  untilMs: Date.parse(at(10)),
};
const created = (accountId: string, minute: number) =>
  createEvent<LinkCreated>(
    'LinkCreated',
    1,
    { linkId: randomUUID(), accountId, slug: 'replayed', destinationUrl: 'https://example.com/', tag: null },
    { eventId: randomUUID(), occurredAt: at(minute) },
  );
const click = (accountId: string, minute: number) =>
  createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: randomUUID(),
      accountId,
      slug: 'replayed',
      clickedAt: Date.parse(at(minute)),
      visitorHash: 'c'.repeat(64),
      referrer: 'Direct',
      country: 'DE',
      userAgent: 'curl/8',
    },
    { eventId: randomUUID(), occurredAt: at(minute) },
  );
const linkRecord = (event: LinkCreated) => ({ value: encodeEvent(event) });

describe('what a replay takes of the log', () => {
  it('given link events: only the account’s, within the window (ends included), with the live message id', () => {
    const inside = created(A, 10);
    expect(replayedLinkMessage(window, linkRecord(inside))?.messageId).toBe(`msg_${inside.eventId}`);
    expect(replayedLinkMessage(window, linkRecord(created(A, 0)))).not.toBeNull();
    expect(replayedLinkMessage(window, linkRecord(created(B, 5)))).toBeNull();
    expect(replayedLinkMessage(window, linkRecord(created(A, 11)))).toBeNull();
    expect(replayedLinkMessage({ ...window, types: new Set(['link.clicked']) }, linkRecord(created(A, 5)))).toBeNull();
    expect(replayedLinkMessage(window, { value: Buffer.from('not json') })).toBeNull();
  });

  it('given clicks: the account’s of the window, cut every 100 in log order, the same cut on every read', () => {
    const wanted = Array.from({ length: 150 }, () => click(A, 5));
    const records = [
      { value: encodeClickRecord([click(B, 5), ...wanted.slice(0, 120), click(A, 20)]) },
      { value: encodeClickRecord(wanted.slice(120)) },
    ];
    const read = () => {
      const clicks = new ReplayClicks(window);
      return [...records.flatMap((r) => clicks.add(r)), ...clicks.rest()];
    };
    const messages = read();
    const ids = messages.map((m) => JSON.parse(m.payload).data.clicks.map((c: { eventId: string }) => c.eventId));
    expect(ids.map((batch: string[]) => batch.length)).toEqual([100, 50]);
    expect(ids.flat()).toEqual(wanted.map((c) => c.eventId));
    expect(read().map((m) => m.messageId)).toEqual(messages.map((m) => m.messageId));
  });
});

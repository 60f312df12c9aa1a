import type { LogProducer, OutgoingRecord } from '@shortlink/event-log';
import { decodeEvent, redirectsFiltered } from '@shortlink/events';
import { FilteredTally } from './filtered-tally';
import { filteredEvents, filteredSender } from './filtered-sender';

const LINK = { linkId: '0190a6c2-0000-7000-8000-00000000000a', accountId: '0190a6c2-0000-7000-8000-0000000000a1' };
const AT = Date.parse('2026-12-06T10:00:00.000Z');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function producer(failures: number) {
  const sent: OutgoingRecord[][] = [];
  let left = failures;
  const p: LogProducer = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    append: async (_topic, records) => {
      if (left-- > 0) throw new Error('the event log is away');
      sent.push([...records]);
    },
  };
  return { p, sent };
}

const idsOf = (records: OutgoingRecord[]) =>
  records.map((r) => {
    const decoded = decodeEvent(redirectsFiltered, r.value as Buffer);
    if (!decoded.ok) throw new Error(decoded.detail);
    return decoded.event.eventId;
  });

describe('the filtered sender', () => {
  it('sends an event again with the same id until the event log has it', async () => {
    const tally = new FilteredTally();
    const { p, sent } = producer(1);
    let n = 0;
    const sender = filteredSender({
      tally,
      producer: p,
      topic: 't',
      logger: quiet,
      now: () => AT,
      newId: () => `0190a6c2-0000-7000-8000-${String(++n).padStart(12, '0')}`,
    });
    tally.count(LINK, { reason: 'head' }, AT);
    await sender.flush();
    expect(sent).toEqual([]);
    expect(sender.pending).toBe(1);
    tally.count(LINK, { reason: 'crawler', family: 'googlebot' }, AT);
    await sender.flush();
    expect(sender.pending).toBe(0);
    // The first event as it was built, then the second: never a count moved into a new id.
    expect(idsOf(sent[0]!)).toEqual(['0190a6c2-0000-7000-8000-000000000001', '0190a6c2-0000-7000-8000-000000000002']);
    await sender.flush();
    expect(sent).toHaveLength(1);
  });

  it('writes a large tally as several events, each within its schema', () => {
    const counts = Array.from({ length: 2500 }, (_, i) => ({
      ...LINK,
      linkId: `0190a6c2-0000-7000-8000-${String(i).padStart(12, '0')}`,
      day: '2026-12-06',
      reason: 'head' as const,
      count: 1,
    }));
    let n = 0;
    const events = filteredEvents(
      { counts, unknownSlugs: [{ day: '2026-12-06', count: 4 }] },
      AT,
      () => `0190a6c2-0000-7000-8000-${String(++n).padStart(12, '0')}`,
    );
    expect(events.map((e) => e.data.counts.length)).toEqual([1000, 1000, 500]);
    expect(events.map((e) => e.data.unknownSlugs.length)).toEqual([1, 0, 0]);
  });
});

import { z } from 'zod';
import fc from 'fast-check';
import { clickEventId, clickEventIds } from './click-event-id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const instant = fc.integer({ min: 0, max: 2 ** 48 - 1 });
const counter = fc.nat({ max: 2 ** 32 - 1 });

describe("a click's event id", () => {
  it('is a UUIDv7 whose time is the click’s instant, as the events’ schema takes it', () => {
    const { prefix } = clickEventIds();
    fc.assert(
      fc.property(instant, counter, (clickedAt, sequence) => {
        const id = clickEventId(prefix, clickedAt, sequence);
        expect(id).toMatch(UUID_V7);
        expect(z.uuid().safeParse(id).success).toBe(true);
        expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(clickedAt);
      }),
    );
  });

  it('tells apart every click of one process, in one millisecond or not', () => {
    const ids = clickEventIds();
    const at = Date.UTC(2026, 10, 25);
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(clickEventId(ids.prefix, at + (i % 3), ids.next()));
    expect(seen.size).toBe(10_000);
  });

  it('is the same every time it is written for one click: a resend is the same event', () => {
    const ids = clickEventIds();
    const sequence = ids.next();
    expect(clickEventId(ids.prefix, 1_795_000_000_000, sequence)).toBe(
      clickEventId(ids.prefix, 1_795_000_000_000, sequence),
    );
  });

  it('differs between processes by their random bits, whatever their counters', () => {
    const prefixes = new Set(Array.from({ length: 1000 }, () => clickEventIds().prefix));
    expect(prefixes.size).toBe(1000);
    // All 42 bits come from the random draw: two draws that differ only in the last bit still differ.
    const a = clickEventIds(() => Buffer.from('000000000000', 'hex'));
    const b = clickEventIds(() => Buffer.from('000000000010', 'hex'));
    expect(a.prefix).not.toBe(b.prefix);
    expect(clickEventId(a.prefix, 0, 0)).toMatch(UUID_V7);
  });

  it('sorts by time across the counter’s wrap', () => {
    const ids = clickEventIds();
    const late = clickEventId(ids.prefix, 1_795_000_000_001, 0);
    const early = clickEventId(ids.prefix, 1_795_000_000_000, 2 ** 32 - 1);
    expect([late, early].sort()).toEqual([early, late]);
  });

  it('counts on from 2^32 - 1 to 0, each id still a UUIDv7', () => {
    const ids = clickEventIds(undefined, 2 ** 32 - 2);
    const sequences = [ids.next(), ids.next(), ids.next()];
    expect(sequences).toEqual([2 ** 32 - 2, 2 ** 32 - 1, 0]);
    for (const sequence of sequences) expect(clickEventId(ids.prefix, Date.now(), sequence)).toMatch(UUID_V7);
  });
});

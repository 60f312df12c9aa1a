import fc from 'fast-check';
import { createEvent } from './codec';
import { CLICKS_PER_RECORD, decodeClickRecord, encodeClickRecord } from './click-records';
import type { ClickRecorded } from './events';

const click = (n: number, userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0'): ClickRecorded =>
  createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: '0e6f1a52-7d0c-4b8e-a3a5-2f9b7c1d4e60',
      accountId: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c',
      slug: 'launch-26',
      clickedAt: 1_795_000_000_000 + n,
      visitorHash: 'a'.repeat(64),
      referrer: 'Direct',
      country: 'DE',
      userAgent,
    },
    {
      eventId: `5b0d3c1e-8f4a-4c55-9d56-${String(n).padStart(12, '0')}`,
      occurredAt: new Date(1_795_000_000_000 + n).toISOString(),
    },
  );

const events = (bytes: Buffer) => decodeClickRecord(bytes).map(({ result }) => (result.ok ? result.event : result));

describe('click records (shortlink.clicks.v2)', () => {
  it('holds several clicks, one JSON envelope a line, and gives them back in order', () => {
    const clicks = [click(1), click(2), click(3)];
    const bytes = encodeClickRecord(clicks);
    expect(
      bytes
        .toString('utf8')
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(clicks);
    expect(events(bytes)).toEqual(clicks);
  });

  it('reads a record of one click as v1 wrote it', () => {
    expect(events(Buffer.from(JSON.stringify(click(7))))).toEqual([click(7)]);
  });

  it('keeps any user agent on its line, whatever characters it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300, unit: 'binary' }), { minLength: 1, maxLength: 5 }), (agents) => {
        const clicks = agents.map((agent, n) => click(n, agent));
        expect(events(encodeClickRecord(clicks))).toEqual(clicks);
      }),
    );
  });

  it('reports a bad line alone, with its index, and the others as good', () => {
    const bytes = Buffer.from([JSON.stringify(click(1)), '{not json', JSON.stringify(click(3)), ''].join('\n'));
    const decoded = decodeClickRecord(bytes);
    expect(decoded.map(({ line, result }) => [line, result.ok])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
  });

  it('refuses an empty or missing value as one bad line', () => {
    for (const bytes of [null, Buffer.alloc(0), Buffer.from('\n\n')]) {
      const decoded = decodeClickRecord(bytes);
      expect(decoded).toHaveLength(1);
      expect(decoded[0]!.result.ok).toBe(false);
    }
  });

  it('stays far below Kafka’s default record limit at its most clicks of the longest fields', () => {
    const longest = { ...click(1, 'u'.repeat(1024)), data: { ...click(1).data, referrer: 'r'.repeat(512) } };
    const bytes = encodeClickRecord(Array.from({ length: CLICKS_PER_RECORD }, () => longest));
    expect(bytes.length).toBeLessThan(1_000_000 / 2);
  });
});

import fc from 'fast-check';
import { createEvent } from './codec';
import { clickRecordedJsonWriter } from './click-recorded-json';
import type { ClickRecorded } from './events';

const text = fc.string({ maxLength: 80, unit: 'binary' });

/** Any values at all in every field, not only valid ones: the writer must agree with JSON.stringify regardless. */
const anyClick = fc
  .record({
    eventId: text,
    occurredAt: text,
    linkId: text,
    accountId: text,
    slug: text,
    clickedAt: fc.oneof(fc.double(), fc.integer({ min: 0, max: 4_102_444_800_000 })),
    visitorHash: text,
    referrer: text,
    country: text,
    userAgent: fc.string({ maxLength: 300, unit: 'binary' }),
  })
  .map(({ eventId, occurredAt, ...data }) =>
    createEvent<ClickRecorded>('ClickRecorded', 1, data, { eventId, occurredAt }),
  );

describe('a ClickRecorded envelope as JSON', () => {
  it('is the text JSON.stringify writes, byte for byte, whatever the fields hold', () => {
    fc.assert(
      fc.property(fc.array(anyClick, { minLength: 1, maxLength: 8 }), (clicks) => {
        const write = clickRecordedJsonWriter();
        expect(clicks.map(write)).toEqual(clicks.map((click) => JSON.stringify(click)));
      }),
      { numRuns: 500 },
    );
  });

  it('quotes each click’s own user agent when the agents of a run differ and repeat', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('A "quoted" agent', 'B\\agent', 'C\nagent'), { maxLength: 20 }),
        (agents) => {
          const write = clickRecordedJsonWriter();
          const clicks = agents.map((userAgent, n) =>
            createEvent<ClickRecorded>(
              'ClickRecorded',
              1,
              {
                linkId: 'l',
                accountId: 'a',
                slug: 's',
                clickedAt: n,
                visitorHash: 'h',
                referrer: 'Direct',
                country: 'XX',
                userAgent,
              },
              { eventId: String(n), occurredAt: 'o' },
            ),
          );
          expect(clicks.map(write)).toEqual(clicks.map((click) => JSON.stringify(click)));
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { createEvent } from './codec';
import { clickRecordedJson, clickRecordedJsonOf, clickRecordedPiece } from './click-recorded-json';
import type { ClickRecorded } from './events';

/** Any text; ids as they really are; and short strings dense in what JSON escapes, beside what it does not. */
const text = fc.oneof(
  fc.string({ maxLength: 80, unit: 'binary' }),
  fc.uuid(),
  fc.string({
    maxLength: 12,
    unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\ud800', '\udc00', '😀', 'é', 'a', '-', ':'),
  }),
);

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
        expect(clicks.map(clickRecordedJsonOf)).toEqual(clicks.map((click) => JSON.stringify(click)));
      }),
      { numRuns: 500 },
    );
  });

  it('is that text too when one field of an otherwise plain click holds what JSON escapes', () => {
    const fields = [
      'eventId',
      'occurredAt',
      'linkId',
      'accountId',
      'slug',
      'visitorHash',
      'referrer',
      'country',
    ] as const;
    const tricky = fc.string({
      minLength: 1,
      maxLength: 6,
      unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\ud800', 'a'),
    });
    fc.assert(
      fc.property(fc.constantFrom(...fields), tricky, fc.uuid(), (field, value, id) => {
        const plain = {
          eventId: id,
          occurredAt: '2026-11-24T23:59:59.999Z',
          linkId: id,
          accountId: id,
          slug: 'launch-26',
          visitorHash: 'ab'.repeat(32),
          referrer: 'https://t.co',
          country: 'DE',
        };
        const f = { ...plain, [field]: value };
        // The data's keys in the order the redirector builds them: the writer's order.
        const click = createEvent<ClickRecorded>(
          'ClickRecorded',
          1,
          {
            linkId: f.linkId,
            accountId: f.accountId,
            slug: f.slug,
            clickedAt: 1_795_000_000_000,
            visitorHash: f.visitorHash,
            referrer: f.referrer,
            country: f.country,
            userAgent: 'Mozilla/5.0',
          },
          { eventId: f.eventId, occurredAt: f.occurredAt },
        );
        expect(clickRecordedJsonOf(click)).toBe(JSON.stringify(click));
      }),
      { numRuns: 500 },
    );
  });

  it('is that text when its pieces are written once and shared by many clicks', () => {
    fc.assert(
      fc.property(
        fc.array(anyClick, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (kinds, picks) => {
          // Each shared piece written once, as a batch writes it; each click takes its own id, instant and time.
          const pieces = kinds.map(({ data }) => ({
            link: clickRecordedPiece.link(data.linkId, data.accountId, data.slug),
            visitorHash: clickRecordedPiece.visitorHash(data.visitorHash),
            referrer: clickRecordedPiece.referrer(data.referrer),
            country: clickRecordedPiece.country(data.country),
            userAgent: clickRecordedPiece.userAgent(data.userAgent),
          }));
          picks.forEach((pick, n) => {
            const kind = pick % kinds.length;
            const click = { ...kinds[kind]!, eventId: `id-${n}`, data: { ...kinds[kind]!.data, clickedAt: n } };
            const p = pieces[kind]!;
            const line = clickRecordedJson(
              click.eventId,
              click.occurredAt,
              n,
              p.link,
              p.visitorHash,
              p.referrer,
              p.country,
              p.userAgent,
            );
            expect(line).toBe(JSON.stringify(click));
          });
        },
      ),
    );
  });
});

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
    unit: fc.constantFrom(
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\u0085',
      '\u2028',
      '\u2029',
      '\ud800',
      '\udc00',
      '😀',
      'é',
      'a',
      '-',
      ':',
    ),
  }),
);

/**
 * What JSON.stringify writes, with the three line breaks JSON leaves as they are (U+0085, U+2028, U+2029)
 * escaped: the same JSON value, one line to every reader of newline-delimited JSON.
 */
const asLine = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Every line break Python's str.splitlines() splits on, the strictest common reader of lines. */
const LINE_BREAKS = ['\n', '\v', '\f', '\r', '\u001c', '\u001d', '\u001e', '\u0085', '\u2028', '\u2029'];
const hasLineBreak = (line: string): boolean => LINE_BREAKS.some((c) => line.includes(c));

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
    trigger: fc.constantFrom(undefined, 'link', 'qr'),
    rule: fc.option(fc.integer({ min: 0, max: 19 }), { nil: undefined }),
    variant: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  })
  .map(({ eventId, occurredAt, trigger, rule, variant, ...data }) =>
    createEvent<ClickRecorded>(
      'ClickRecorded',
      1,
      {
        ...data,
        ...(trigger === undefined ? {} : { trigger }),
        ...(rule === undefined ? {} : { rule }),
        ...(variant === undefined ? {} : { variant }),
      },
      { eventId, occurredAt },
    ),
  );

describe('a ClickRecorded envelope as JSON', () => {
  it('is the text JSON.stringify writes, byte for byte but for the Unicode line breaks, whatever the fields hold', () => {
    fc.assert(
      fc.property(fc.array(anyClick, { minLength: 1, maxLength: 8 }), (clicks) => {
        expect(clicks.map(clickRecordedJsonOf)).toEqual(clicks.map(asLine));
      }),
      { numRuns: 500 },
    );
  });

  it('is one line to any reader of lines, and the click again once parsed, whatever the fields hold', () => {
    fc.assert(
      fc.property(anyClick, (click) => {
        const line = clickRecordedJsonOf(click);
        expect(hasLineBreak(line)).toBe(false);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(click)));
      }),
      { numRuns: 500 },
    );
    const agent = 'Mozilla/5.0 LS\u2028PS\u2029NEL\u0085end';
    const click = createEvent<ClickRecorded>(
      'ClickRecorded',
      1,
      {
        linkId: 'l',
        accountId: 'a',
        slug: 's',
        clickedAt: 1,
        visitorHash: 'v',
        referrer: 'Direct',
        country: 'XX',
        userAgent: agent,
      },
      { eventId: 'e', occurredAt: 'o' },
    );
    expect(clickRecordedJsonOf(click)).toContain('"userAgent":"Mozilla/5.0 LS\\u2028PS\\u2029NEL\\u0085end"');
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
      unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\u0085', '\ud800', 'a'),
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
        expect(clickRecordedJsonOf(click)).toBe(asLine(click));
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
              click.data.trigger,
              click.data.rule,
              click.data.variant,
            );
            expect(line).toBe(asLine(click));
          });
        },
      ),
    );
  });
});

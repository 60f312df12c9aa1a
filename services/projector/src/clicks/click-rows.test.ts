import { randomUUID } from 'node:crypto';
import type { LogRecord } from '@shortlink/event-log';
import { createEvent, encodeClickRecord, encodeEvent, type ClickRecorded } from '@shortlink/events';
import fc from 'fast-check';
import { clickRows, clickRowsFromText, clickRowsText, clicksInRecord, type RowOutcome } from './click-rows';

/**
 * The click projection's pure part, as given / when / then: given a message on
 * the clicks topic, when it is projected, then this is the fact row (or the
 * reason it goes to the dead-letter topic).
 */
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

function clickRecorded(over: Partial<ClickRecorded['data']> = {}): ClickRecorded {
  return createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId: randomUUID(),
      accountId: randomUUID(),
      slug: 'spring-26',
      clickedAt: Date.UTC(2026, 10, 23, 17, 4, 5, 678),
      visitorHash: 'ab'.repeat(32),
      referrer: 'https://news.ycombinator.com',
      country: 'GB',
      userAgent: IPHONE,
      ...over,
    },
    { eventId: randomUUID(), occurredAt: '2026-11-23T17:04:05.678Z' },
  );
}

const given = (value: Buffer | null, offset = '42') => ({
  when: (partition: number) => ({
    then: (expected: RowOutcome | ((outcome: RowOutcome | undefined) => void)) => {
      const [outcome, ...more] = clickRows({ value, offset } as LogRecord, partition);
      expect(more).toEqual([]);
      if (typeof expected === 'function') expected(outcome);
      else expect(outcome).toEqual(expected);
    },
  }),
});

describe('projecting a click', () => {
  it('gives the fact row: ids, the UTC instant ClickHouse reads, the classified user agent, and where it came from', () => {
    const event = clickRecorded();
    given(encodeEvent(event), '1234567')
      .when(3)
      .then({
        ok: true,
        row: {
          event_id: event.eventId,
          link_id: event.data.linkId,
          account_id: event.data.accountId,
          slug: 'spring-26',
          clicked_at: '2026-11-23 17:04:05.678',
          visitor_hash: 'ab'.repeat(32),
          referrer: 'https://news.ycombinator.com',
          country: 'GB',
          device: 'mobile',
          browser: 'Safari',
          os: 'iOS',
          source_partition: 3,
          source_offset: '1234567',
          trigger: 'link',
          rule: -1,
          variant: -1,
          domain: '',
        },
        clickedAt: Date.UTC(2026, 10, 23, 17, 4, 5, 678),
      });
  });

  it("keeps a QR code's scan as its trigger", () => {
    given(encodeEvent(clickRecorded({ trigger: 'qr' })))
      .when(0)
      .then((outcome) => expect(outcome).toMatchObject({ ok: true, row: { trigger: 'qr' } }));
  });

  it('keeps the rule or the variant that chose the destination', () => {
    given(encodeEvent(clickRecorded({ rule: 4 })))
      .when(0)
      .then((outcome) => expect(outcome).toMatchObject({ ok: true, row: { rule: 4, variant: -1 } }));
    given(encodeEvent(clickRecorded({ variant: 2 })))
      .when(0)
      .then((outcome) => expect(outcome).toMatchObject({ ok: true, row: { rule: -1, variant: 2 } }));
  });

  it('keeps an unknown user agent countable, under Unknown', () => {
    given(encodeEvent(clickRecorded({ userAgent: 'SomethingNobodyKnows/1.0' })))
      .when(0)
      .then((outcome) => expect(outcome).toMatchObject({ ok: true, row: { browser: 'Unknown' } }));
  });

  it.each([
    ['no value', null, /^invalid-json/],
    ['bytes that are not JSON', Buffer.from('{"type":"ClickRecorded"'), /^invalid-json/],
    ['JSON that is not a ClickRecorded', Buffer.from('{"type":"LinkCreated","schemaVersion":1}'), /^invalid-event/],
    [
      'a ClickRecorded with a raw IP instead of a visitor hash',
      encodeEvent({ ...clickRecorded(), data: { ...clickRecorded().data, visitorHash: '203.0.113.7' } }),
      /^invalid-event/,
    ],
  ])('sends %s to the dead-letter topic with its reason', (_name, value, reason) => {
    given(value)
      .when(0)
      .then((outcome) => {
        expect(outcome?.ok).toBe(false);
        if (outcome && !outcome.ok) expect(outcome.reason).toMatch(reason);
      });
  });
});

describe('projecting a record of several clicks (shortlink.clicks.v2)', () => {
  const record = (value: Buffer, count?: number): LogRecord =>
    ({ value, offset: '77', headers: count === undefined ? {} : { 'event-count': String(count) } }) as LogRecord;

  it('gives a row per click, in order, each with the record as its lineage', () => {
    const events = [clickRecorded(), clickRecorded({ country: 'FR' }), clickRecorded({ country: 'JP' })];
    const outcomes = clickRows(record(encodeClickRecord(events), 3), 5);
    expect(
      outcomes.map((o) => (o.ok ? [o.row.event_id, o.row.country, o.row.source_partition, o.row.source_offset] : o)),
    ).toEqual(events.map((e) => [e.eventId, e.data.country, 5, '77']));
  });

  it('refuses a bad line alone, with its index and text, and counts the others', () => {
    const good = clickRecorded();
    const bytes = Buffer.from(
      [encodeEvent(good).toString(), '{"type":"ClickRecorded"', encodeEvent(good).toString()].join('\n'),
    );
    const outcomes = clickRows(record(bytes, 3), 0);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(outcomes[1]).toMatchObject({ ok: false, line: 1, text: '{"type":"ClickRecorded"' });
  });

  it('reads how many clicks a record holds from its header, 1 without it or when it is not a count', () => {
    const bytes = encodeEvent(clickRecorded());
    expect(clicksInRecord(record(bytes, 150))).toBe(150);
    expect(clicksInRecord(record(bytes))).toBe(1);
    expect(clicksInRecord({ ...record(bytes), headers: { 'event-count': 'many' } })).toBe(1);
  });
});

describe('the rows kept for an insert', () => {
  it('read back field for field, whatever the text holds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            event_id: fc.uuid(),
            link_id: fc.uuid(),
            account_id: fc.uuid(),
            slug: fc.string(),
            clicked_at: fc.string(),
            visitor_hash: fc.string(),
            referrer: fc.string({ unit: 'binary' }),
            country: fc.string(),
            device: fc.string(),
            browser: fc.string({ unit: 'binary' }),
            os: fc.string(),
            source_partition: fc.nat(),
            source_offset: fc.bigInt({ min: 0n }).map(String),
            trigger: fc.constantFrom('link', 'qr'),
            rule: fc.integer({ min: -1, max: 19 }),
            variant: fc.integer({ min: -1, max: 3 }),
            domain: fc.constantFrom('', 'go.example.com'),
          }),
        ),
        (rows) => {
          expect(clickRowsFromText(clickRowsText(rows))).toEqual(rows);
        },
      ),
    );
  });

  it('are kept as the values in column order, not as objects', () => {
    const text = clickRowsText([
      {
        event_id: 'e',
        link_id: 'l',
        account_id: 'a',
        slug: 's',
        clicked_at: 't',
        visitor_hash: 'v',
        referrer: 'r',
        country: 'c',
        device: 'd',
        browser: 'b',
        os: 'o',
        source_partition: 3,
        source_offset: '9',
        trigger: 'qr',
        rule: 2,
        variant: -1,
        domain: 'go.example.com',
      },
    ]);
    expect(text).toBe('[["e","l","a","s","t","v","r","c","d","b","o",3,"9","qr",2,-1,"go.example.com"]]');
  });

  it('read a followed link where a version before the trigger column kept a row without it', () => {
    expect(clickRowsFromText('[["e","l","a","s","t","v","r","c","d","b","o",3,"9"]]')[0]?.trigger).toBe('link');
    expect(clickRowsFromText('[["e","l","a","s","t","v","r","c","d","b","o",3,"9","qr"]]')[0]).toMatchObject({
      rule: -1,
      variant: -1,
      domain: '',
    });
  });
});

import { randomUUID } from 'node:crypto';
import type { LogRecord } from '@shortlink/kafka';
import { createEvent, encodeEvent, type ClickRecorded } from '@shortlink/events';
import { clickRow, type RowOutcome } from './click-rows';

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
    then: (expected: RowOutcome | ((outcome: RowOutcome) => void)) => {
      const outcome = clickRow({ value, offset } as LogRecord, partition);
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
        },
        clickedAt: Date.UTC(2026, 10, 23, 17, 4, 5, 678),
      });
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
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.reason).toMatch(reason);
      });
  });
});

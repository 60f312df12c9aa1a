import { encodeEvent, type LinkCreated } from '@shortlink/events';
import { decodeFetch, packFetch } from './decode-fetch';

const created = (slug: string, destinationUrl: string): Buffer =>
  encodeEvent({
    eventId: '00000000-0000-4000-8000-000000000001',
    occurredAt: '2026-01-01T00:00:00.000Z',
    type: 'LinkCreated',
    schemaVersion: 1,
    data: {
      linkId: '00000000-0000-4000-8000-000000000002',
      accountId: '00000000-0000-4000-8000-000000000003',
      slug,
      destinationUrl,
      tag: null,
    },
  } satisfies LinkCreated);

describe('decoding a packed fetch', () => {
  const records = [
    { offset: '7', value: null },
    { offset: '8', value: Buffer.from('not json') },
    { offset: '9', value: created('abc', 'https://example.com/a\tb\\c\nd') },
    { offset: '11', value: Buffer.from('{"type":"LinkCreated"}') },
  ];

  it('skips what the live projector would dead-letter and keeps each event at its offset', () => {
    const { payloads, skipped } = decodeFetch(packFetch(3, records, 'json'));
    expect(skipped).toBe(3);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({ changes: null, previews: null, events: 1 });
    expect(JSON.parse(payloads[0]!.creations!)).toEqual([
      expect.objectContaining({
        slug: 'abc',
        partition: 3,
        offset: '9',
        destinationUrl: 'https://example.com/a\tb\\c\nd',
      }),
    ]);
  });

  it('writes new rows in COPY text, escaping what COPY treats specially', () => {
    const { payloads } = decodeFetch(packFetch(3, records, 'copy'));
    const fields = payloads[0]!.creations!.split('\n')[0]!.split('\t');
    expect(fields).toHaveLength(13);
    expect(fields[12]).toBe('\\N'); // no routing
    expect(fields[3]).toBe('https://example.com/a\\tb\\\\c\\nd');
    expect(fields[4]).toBe('\\N');
    expect(fields.slice(7, 9)).toEqual(['3', '9']);
  });
});

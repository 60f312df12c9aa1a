import type { LogRecord } from '@shortlink/event-log';
import { linkTagRow } from './link-tag-rows';

const ACCOUNT = '00000000-0000-4000-8000-00000000000a';
const LINK = '00000000-0000-4000-8000-000000000001';
const META = {
  eventId: '00000000-0000-4000-9000-000000000001',
  schemaVersion: 1,
  occurredAt: '2026-12-01T10:00:00.000Z',
};

const record = (event: object | string): LogRecord => ({
  offset: '0',
  key: Buffer.from('spring-sale'),
  value: Buffer.from(typeof event === 'string' ? event : JSON.stringify(event)),
  timestamp: '0',
});

const created = (tag: string | null) => ({
  ...META,
  type: 'LinkCreated',
  data: { linkId: LINK, accountId: ACCOUNT, slug: 'spring-sale', destinationUrl: 'https://example.com/', tag },
});

describe('linkTagRow', () => {
  it('given a LinkCreated, writes the link’s tag at version 1, no tag as the empty text', () => {
    expect(linkTagRow(record(created('spring')))).toEqual({ kind: 'row', row: [ACCOUNT, LINK, 0, 'spring', 1] });
    expect(linkTagRow(record(created(null)))).toEqual({ kind: 'row', row: [ACCOUNT, LINK, 0, '', 1] });
  });

  it('given a LinkUpdated, writes its whole tag at its version, whichever field changed', () => {
    const updated = (tag: string | null, changedFields: string[]) => ({
      ...META,
      type: 'LinkUpdated',
      data: {
        linkId: LINK,
        accountId: ACCOUNT,
        slug: 'spring-sale',
        version: 3,
        destinationUrl: 'https://example.com/new',
        tag,
        changedFields,
      },
    });
    expect(linkTagRow(record(updated('fall', ['tag'])))).toEqual({ kind: 'row', row: [ACCOUNT, LINK, 0, 'fall', 3] });
    expect(linkTagRow(record(updated(null, ['tag'])))).toEqual({ kind: 'row', row: [ACCOUNT, LINK, 0, '', 3] });
    expect(linkTagRow(record(updated('fall', ['destinationUrl'])))).toEqual({
      kind: 'row',
      row: [ACCOUNT, LINK, 0, 'fall', 3],
    });
  });

  it('given a LinkDeleted, writes a deletion row, which leaves the last tag row in place', () => {
    const deleted = {
      ...META,
      type: 'LinkDeleted',
      data: { linkId: LINK, accountId: ACCOUNT, slug: 'spring-sale', version: 4 },
    };
    expect(linkTagRow(record(deleted))).toEqual({ kind: 'row', row: [ACCOUNT, LINK, 1, '', 4] });
  });

  it('passes over a preview and a record that is no link event (the link projector parks those)', () => {
    const preview = {
      ...META,
      type: 'LinkPreviewFailed',
      data: { linkId: LINK, slug: 'spring-sale', reason: 'timeout' },
    };
    expect(linkTagRow(record(preview))).toMatchObject({ kind: 'none' });
    expect(linkTagRow(record('{not json'))).toEqual({ kind: 'none', reason: 'not-a-link-event' });
    expect(linkTagRow(record({ ...created('x'), data: { linkId: 'nope' } }))).toEqual({
      kind: 'none',
      reason: 'not-a-link-event',
    });
  });
});

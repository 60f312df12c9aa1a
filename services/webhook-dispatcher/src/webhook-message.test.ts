import { clickEvent, linkEvent, type ClickRecorded, type LinkEvent } from '@shortlink/events';
import { clickBatchMessage, linkEventMessage } from './webhook-message';

const accountId = '6f1c1f8e-5a6b-4c1d-9e2f-0a1b2c3d4e5f';
const linkId = '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e';
const occurredAt = '2026-12-01T10:00:00.000Z';

const link = (type: string, eventId: string, data: object): LinkEvent =>
  linkEvent.parse({
    eventId,
    type,
    schemaVersion: 1,
    occurredAt,
    data: { linkId, accountId, slug: 'summer', ...data },
  });

const click = (n: number, at = occurredAt): ClickRecorded =>
  clickEvent.parse({
    eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: 'ClickRecorded',
    schemaVersion: 1,
    occurredAt: at,
    data: {
      linkId,
      accountId,
      slug: 'summer',
      clickedAt: Date.parse(at),
      visitorHash: 'a'.repeat(64),
      referrer: 'https://news.example',
      country: 'FR',
      userAgent: 'Mozilla/5.0 "quoted" \u2028',
    },
  });

describe('webhook messages', () => {
  it('given a LinkCreated, sends link.created with the link, ordered by the link, its id from the event', () => {
    const event = link('LinkCreated', '11111111-1111-4111-8111-111111111111', {
      destinationUrl: 'https://example.com/a',
      tag: null,
    });
    const message = linkEventMessage(event)!;
    expect(message).toMatchObject({
      messageId: 'msg_11111111-1111-4111-8111-111111111111',
      type: 'link.created',
      accountId,
      orderingKey: linkId,
      occurredAt,
    });
    expect(JSON.parse(message.payload)).toEqual({
      type: 'link.created',
      timestamp: occurredAt,
      data: {
        id: linkId,
        slug: 'summer',
        destinationUrl: 'https://example.com/a',
        tag: null,
        version: 1,
        rules: [],
        variants: null,
        domain: null,
      },
    });
    // The same event read again is the same message
    expect(linkEventMessage(event)).toEqual(message);
  });

  it('given a LinkUpdated or LinkDeleted, sends their version and what changed', () => {
    const updated = linkEventMessage(
      link('LinkUpdated', '22222222-2222-4222-8222-222222222222', {
        version: 3,
        destinationUrl: 'https://example.com/b',
        tag: 'x',
        changedFields: ['tag'],
      }),
    )!;
    expect(JSON.parse(updated.payload)).toEqual({
      type: 'link.updated',
      timestamp: occurredAt,
      data: {
        id: linkId,
        slug: 'summer',
        destinationUrl: 'https://example.com/b',
        tag: 'x',
        version: 3,
        changedFields: ['tag'],
        rules: [],
        variants: null,
        domain: null,
      },
    });
    const deleted = linkEventMessage(link('LinkDeleted', '33333333-3333-4333-8333-333333333333', { version: 4 }))!;
    expect(deleted.type).toBe('link.deleted');
    expect(JSON.parse(deleted.payload).data).toEqual({ id: linkId, slug: 'summer', version: 4, domain: null });
  });

  it('given a LinkUpdated v2, adds its rules, variants and domain to the payload', () => {
    const rules = [{ when: { device: ['mobile'] }, destinationUrl: 'https://example.com/m' }];
    const variants = [
      { destinationUrl: 'https://example.com/a', weight: 30 },
      { destinationUrl: 'https://example.com/b', weight: 70 },
    ];
    const event = linkEvent.parse({
      eventId: '55555555-5555-4555-8555-555555555555',
      type: 'LinkUpdated',
      schemaVersion: 2,
      occurredAt,
      data: {
        linkId,
        accountId,
        slug: 'summer',
        version: 2,
        destinationUrl: 'https://example.com/b',
        tag: null,
        changedFields: ['rules', 'variants'],
        rules,
        variants,
        domain: null,
      },
    });
    expect(JSON.parse(linkEventMessage(event)!.payload).data).toMatchObject({
      changedFields: ['rules', 'variants'],
      rules,
      variants,
      domain: null,
    });
  });

  it('given a preview event, sends nothing', () => {
    const preview = linkEvent.parse({
      eventId: '44444444-4444-4444-8444-444444444444',
      type: 'LinkPreviewFailed',
      schemaVersion: 1,
      occurredAt,
      data: { linkId, slug: 'summer', reason: 'blocked' },
    });
    expect(linkEventMessage(preview)).toBeNull();
  });

  it('given a batch of clicks, sends link.clicked with their fields and no account, stamped with the newest', () => {
    const message = clickBatchMessage([click(1, '2026-12-01T10:00:00.000Z'), click(2, '2026-12-01T10:00:00.500Z')]);
    expect(message).toMatchObject({
      type: 'link.clicked',
      accountId,
      orderingKey: null,
      occurredAt: '2026-12-01T10:00:00.000Z',
    });
    const body = JSON.parse(message.payload);
    expect(body.timestamp).toBe('2026-12-01T10:00:00.500Z');
    expect(body.data.clicks).toHaveLength(2);
    expect(body.data.clicks[0]).toEqual({
      eventId: '00000000-0000-4000-8000-000000000001',
      linkId,
      slug: 'summer',
      clickedAt: '2026-12-01T10:00:00.000Z',
      visitorHash: 'a'.repeat(64),
      referrer: 'https://news.example',
      country: 'FR',
      userAgent: 'Mozilla/5.0 "quoted" \u2028',
      domain: null,
    });
    expect(message.payload).not.toContain(accountId);
  });

  it('names a click batch by its clicks: the same batch read again, the same id; another batch, another', () => {
    const a = clickBatchMessage([click(1), click(2)]);
    expect(clickBatchMessage([click(1), click(2)]).messageId).toBe(a.messageId);
    expect(clickBatchMessage([click(1)]).messageId).not.toBe(a.messageId);
    expect(clickBatchMessage([click(2), click(1)]).messageId).not.toBe(a.messageId);
    expect(a.messageId).toMatch(/^msg_clicks_[0-9a-f]{32}$/);
    expect(() => clickBatchMessage([])).toThrow();
  });
});

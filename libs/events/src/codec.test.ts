import { createEvent, decodeEvent, encodeEvent } from './codec';
import { linkEvent, type LinkCreated } from './events';

const meta = {
  eventId: '5b0d3c1e-8f4a-4c55-9d56-1e2f3a4b5c6d',
  occurredAt: '2026-11-22T10:00:00.123Z',
};
const data = {
  linkId: '0e6f1a52-7d0c-4b8e-a3a5-2f9b7c1d4e60',
  accountId: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c',
  slug: 'launch-26',
  destinationUrl: 'https://example.com/a?b=c',
  tag: null,
};

describe('event codec', () => {
  it('round-trips a LinkCreated through bytes', () => {
    const event = createEvent<LinkCreated>('LinkCreated', 1, data, meta);
    const decoded = decodeEvent(linkEvent, encodeEvent(event));
    expect(decoded).toEqual({ ok: true, event });
  });

  it('refuses malformed JSON without throwing', () => {
    const decoded = decodeEvent(linkEvent, Buffer.from('{not json'));
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toBe('invalid-json');
  });

  it('refuses an unknown schema version', () => {
    const event = { ...createEvent<LinkCreated>('LinkCreated', 1, data, meta), schemaVersion: 2 };
    const decoded = decodeEvent(linkEvent, JSON.stringify(event));
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toBe('invalid-event');
  });

  it('refuses a timestamp that is not UTC with milliseconds', () => {
    const event = {
      ...createEvent<LinkCreated>('LinkCreated', 1, data, meta),
      occurredAt: '2026-11-22T10:00:00Z',
    };
    const decoded = decodeEvent(linkEvent, JSON.stringify(event));
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.detail).toMatch(/occurredAt/);
  });

  it('refuses a null message value', () => {
    expect(decodeEvent(linkEvent, null).ok).toBe(false);
  });
});

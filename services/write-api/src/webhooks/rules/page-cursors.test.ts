import { decodeAttemptCursor, decodeWebhookCursor, encodeAttemptCursor, encodeWebhookCursor } from './page-cursors';

const WEBHOOK = { createdAtMicros: 1_795_000_000_123_456n, webhookId: '5b1c7c2e-8f0a-4a52-9a57-0c6a3b3a9d11' };

describe('the webhook lists’ cursors', () => {
  it('decode what they encoded, and nothing else', () => {
    const cursor = encodeWebhookCursor(WEBHOOK);
    expect(decodeWebhookCursor(cursor)).toEqual(WEBHOOK);
    expect(cursor).not.toContain('5b1c7c2e');
    expect(decodeAttemptCursor(encodeAttemptCursor(42n))).toBe(42n);
  });

  it('are not interchangeable between the two lists', () => {
    expect(decodeAttemptCursor(encodeWebhookCursor(WEBHOOK))).toBeNull();
    expect(decodeWebhookCursor(encodeAttemptCursor(42n))).toBeNull();
  });

  it.each(['', 'garbage!', 'A'.repeat(65), `${encodeAttemptCursor(42n)}A`, encodeAttemptCursor(0n)])(
    'refuse %j',
    (cursor) => {
      expect(decodeAttemptCursor(cursor)).toBeNull();
      expect(decodeWebhookCursor(cursor)).toBeNull();
    },
  );

  it('refuse a non-canonical spelling (stray bits in the last character)', () => {
    const cursor = encodeWebhookCursor(WEBHOOK);
    const last = cursor.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const stray = alphabet[(alphabet.indexOf(last) + 1) % 64]!;
    expect(decodeWebhookCursor(cursor.slice(0, -1) + stray)).toBeNull();
  });
});

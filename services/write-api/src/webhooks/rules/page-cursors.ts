/**
 * The page cursors of the webhook lists, opaque to clients: a version byte and
 * the position of the page's last item, base64url. Only the canonical spelling
 * of what `encode…` made decodes; anything else is null.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A webhook's place in its account's list: its creation (microseconds since 1970) and its id. */
export interface WebhookPosition {
  createdAtMicros: bigint;
  webhookId: string;
}

export function encodeWebhookCursor(position: WebhookPosition): string {
  const bytes = Buffer.alloc(25);
  bytes[0] = 1;
  bytes.writeBigInt64BE(position.createdAtMicros, 1);
  bytes.write(position.webhookId.replaceAll('-', ''), 9, 'hex');
  return bytes.toString('base64url');
}

export function decodeWebhookCursor(cursor: string): WebhookPosition | null {
  const bytes = canonical(cursor, 25);
  if (bytes === null || bytes[0] !== 1) return null;
  const hex = bytes.subarray(9).toString('hex');
  const webhookId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return UUID.test(webhookId) ? { createdAtMicros: bytes.readBigInt64BE(1), webhookId } : null;
}

/** An attempt's place in its webhook's list: its id, newest first. */
export function encodeAttemptCursor(attemptId: bigint): string {
  const bytes = Buffer.alloc(9);
  bytes[0] = 2;
  bytes.writeBigInt64BE(attemptId, 1);
  return bytes.toString('base64url');
}

export function decodeAttemptCursor(cursor: string): bigint | null {
  const bytes = canonical(cursor, 9);
  if (bytes === null || bytes[0] !== 2) return null;
  const id = bytes.readBigInt64BE(1);
  return id > 0n ? id : null;
}

function canonical(cursor: string, length: number): Buffer | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor) || cursor.length > 64) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  return bytes.length === length && bytes.toString('base64url') === cursor ? bytes : null;
}

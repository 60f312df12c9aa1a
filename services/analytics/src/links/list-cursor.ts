import { uuidText } from '@shortlink/events';

/**
 * The list's page cursor: the id of the last link of the page, in a form
 * clients cannot take apart or build (a version byte and the 16 bytes of the
 * UUID, base64url). Naming a link rather than a position in the service-wide
 * sequence keeps that sequence (how many links everyone creates) out of sight.
 */
const VERSION = 1;
const BYTES = 17;
/** base64url of 17 bytes, no padding: 23 characters. */
const SHAPE = /^[A-Za-z0-9_-]{23}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(linkId: string): string {
  if (!UUID.test(linkId)) throw new Error(`not a link id: ${linkId}`);
  const bytes = Buffer.alloc(BYTES);
  bytes[0] = VERSION;
  bytes.write(linkId.replaceAll('-', ''), 1, 'hex');
  return bytes.toString('base64url');
}

/** The link id a cursor names, or null for anything `encodeCursor` did not make. */
export function decodeCursor(cursor: string): string | null {
  if (!SHAPE.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  // A last character carrying bits beyond the 17th byte decodes the same: only the canonical form is one.
  if (bytes.length !== BYTES || bytes[0] !== VERSION || bytes.toString('base64url') !== cursor) return null;
  return uuidText(bytes.subarray(1));
}

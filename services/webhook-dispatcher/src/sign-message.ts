import { createHmac } from 'node:crypto';

/** The Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const SECRET_PREFIX = 'whsec_';
/** Padded base64, as the standardwebhooks library's decoder takes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Signs a message for one attempt with each of the endpoint's secrets
 * (`whsec_…`; two during a rotation): `v1,<base64 HMAC-SHA256>` each,
 * space-separated, so a receiver holding either secret verifies it. The
 * timestamp is the attempt's, so a retry is not refused as a replay.
 * Node's HMAC, not the standardwebhooks library's JavaScript one: every
 * attempt signs its whole body (a click batch is tens of kB), and that was
 * most of what signing cost the dispatcher. The library stays the tests' receiver.
 */
export function signMessage(secrets: readonly string[], messageId: string, payload: string, at: Date): SignedHeaders {
  if (secrets.length === 0) throw new Error('an endpoint signs with at least one secret');
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets
      .map(
        (secret) =>
          `v1,${createHmac('sha256', signingKey(secret)).update(`${messageId}.${timestamp}.`).update(payload).digest('base64')}`,
      )
      .join(' '),
  };
}

/** The key a `whsec_…` secret holds; a secret that is not base64 is refused, as the library refuses it. */
function signingKey(secret: string): Buffer {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (text === '' || !BASE64.test(text)) throw new Error('a signing secret is base64 after its prefix');
  return Buffer.from(text, 'base64');
}

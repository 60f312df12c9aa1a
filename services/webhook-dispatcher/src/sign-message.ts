import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a message for one attempt with each of the endpoint's secrets
 * (`whsec_…`; two during a rotation): `v1,<base64 HMAC-SHA256>` each,
 * space-separated, so a receiver holding either secret verifies it. The
 * timestamp is the attempt's, so a retry is not refused as a replay.
 */
export function signMessage(secrets: readonly string[], messageId: string, payload: string, at: Date): SignedHeaders {
  if (secrets.length === 0) throw new Error('an endpoint signs with at least one secret');
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, payload)).join(' '),
  };
}

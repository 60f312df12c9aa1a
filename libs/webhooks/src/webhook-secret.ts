import { randomBytes } from 'node:crypto';

/**
 * A signing secret as Standard Webhooks spells it: `whsec_` and the base64 of
 * its random bytes (24 to 32 of them). The HMAC key is the decoded bytes.
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const SHAPE = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A new secret: 32 random bytes (256 bits, the size of an HMAC-SHA256 key). */
export function newWebhookSecret(random: (size: number) => Buffer = randomBytes): string {
  return `${SECRET_PREFIX}${random(SECRET_BYTES).toString('base64')}`;
}

/** The HMAC key a secret stands for, or null when the text is not a secret of this format. */
export function webhookSecretKey(secret: string): Buffer | null {
  if (!SHAPE.test(secret)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Only the canonical spelling is one: stray characters or bits would otherwise decode alike.
  if (key.length < 24 || key.length > 32 || key.toString('base64') !== encoded) return null;
  return key;
}

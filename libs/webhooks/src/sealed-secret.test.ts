import { randomBytes } from 'node:crypto';
import { keyId, openSealedSecret, sealSecret, SealedSecretError } from './sealed-secret';
import { newWebhookSecret } from './webhook-secret';

const key = randomBytes(32);
const otherKey = randomBytes(32);

describe('sealing signing secrets at rest', () => {
  it('opens what it sealed, and the sealed text does not hold the secret', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSealedSecret(key, sealed)).toBe(secret);
  });

  it('seals the same secret differently each time (a fresh IV)', () => {
    const secret = newWebhookSecret();
    expect(sealSecret(key, secret)).not.toBe(sealSecret(key, secret));
  });

  it('says the key changed when a secret was sealed under another key', () => {
    const sealed = sealSecret(key, newWebhookSecret());
    expect(() => openSealedSecret(otherKey, sealed)).toThrow(SealedSecretError);
    expect(() => openSealedSecret(otherKey, sealed)).toThrow(/WEBHOOKS_ENCRYPTION_KEY changed/);
  });

  it.each([
    ['a flipped ciphertext bit', (s: string[]) => s.with(3, flip(s[3]!))],
    ['a flipped tag bit', (s: string[]) => s.with(4, flip(s[4]!))],
    ['another IV', (s: string[]) => s.with(2, randomBytes(12).toString('base64url'))],
    ['a relabelled version', (s: string[]) => s.with(0, 'v2')],
    ['a missing part', (s: string[]) => s.slice(0, 4)],
  ])('refuses a sealed secret with %s', (_name, damage) => {
    const sealed = sealSecret(key, newWebhookSecret()).split('.');
    expect(() => openSealedSecret(key, damage(sealed).join('.'))).toThrow(SealedSecretError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => sealSecret(randomBytes(16), 'whsec_x')).toThrow(RangeError);
    expect(keyId(key)).toHaveLength(8);
    expect(keyId(key)).not.toBe(keyId(otherKey));
  });
});

function flip(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString('base64url');
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Signing secrets at rest: AES-256-GCM under the installation's key-encryption
 * key (WEBHOOKS_ENCRYPTION_KEY), as `v1.<key id>.<iv>.<ciphertext>.<tag>`
 * (base64url). The key id names the key without revealing it, so a secret
 * sealed under another key is told apart from a damaged one.
 */
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a sealed secret could not be opened: the key changed, or the text is not a sealed secret. */
export class SealedSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedSecretError';
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`a key-encryption key is ${KEY_BYTES} bytes, not ${key.length}`);
}

/** A short, stable name of a key: 8 characters of its SHA-256. */
export function keyId(key: Buffer): string {
  checkKey(key);
  return createHash('sha256').update('shortlink webhook secrets\0').update(key).digest('base64url').slice(0, 8);
}

export function sealSecret(key: Buffer, secret: string, iv: Buffer = randomBytes(IV_BYTES)): string {
  const header = `${VERSION}.${keyId(key)}`;
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // The header is authenticated too: a sealed secret cannot be relabelled.
  cipher.setAAD(Buffer.from(header));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [
    header,
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

export function openSealedSecret(key: Buffer, sealed: string): string {
  const parts = sealed.split('.');
  const [version, id, iv, ciphertext, tag] = parts;
  if (parts.length !== 5 || version !== VERSION || !id || !iv || !ciphertext || !tag) {
    throw new SealedSecretError('not a sealed secret of a known version');
  }
  if (id !== keyId(key)) {
    throw new SealedSecretError(
      `sealed under another key-encryption key (${id}, this one is ${keyId(key)}): WEBHOOKS_ENCRYPTION_KEY changed`,
    );
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES)
    throw new SealedSecretError('damaged sealed secret');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(`${version}.${id}`));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError('damaged sealed secret: it does not authenticate under this key');
  }
}

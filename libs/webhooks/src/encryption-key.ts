import type { Pool } from 'pg';
import { instanceSecret } from '@shortlink/postgres';

/** The name of the generated key among the installation's secrets (table `instance_secrets`). */
export const GENERATED_KEY_NAME = 'webhooks-encryption-key';

/** A key-encryption key from its base64 (or base64url) text, or null unless it is exactly 32 bytes. */
export function parseEncryptionKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

/**
 * The key that seals signing secrets: WEBHOOKS_ENCRYPTION_KEY when set, else
 * one the installation generates once and keeps in Postgres beside the data
 * (docs/decisions/0059-webhook-secrets-sealed-at-rest.md), so that every
 * process (write APIs, dispatchers, `npm start`) uses the same one.
 */
export async function webhooksEncryptionKey(pool: Pool, configured: Buffer | undefined): Promise<Buffer> {
  if (configured !== undefined) return configured;
  const key = parseEncryptionKey(await instanceSecret(pool, GENERATED_KEY_NAME));
  if (key === null) throw new Error(`instance secret ${GENERATED_KEY_NAME} is not a 32-byte key`);
  return key;
}

/**
 * The key, read once and shared by every seal and unseal of the process. A
 * failed read (Postgres away) is not kept: the next use tries again.
 */
export function sealingKey(pool: Pool, configured: Buffer | undefined): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  return () => {
    key ??= webhooksEncryptionKey(pool, configured).catch((err: unknown) => {
      key = undefined;
      throw err;
    });
    return key;
  };
}

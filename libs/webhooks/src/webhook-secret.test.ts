import { randomBytes } from 'node:crypto';
import { newWebhookSecret, webhookSecretKey } from './webhook-secret';
import { parseEncryptionKey } from './encryption-key';
import { newMessageId } from './message-id';

describe('signing secrets (Standard Webhooks format)', () => {
  it('is whsec_ and the base64 of 32 random bytes, never the same twice', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretKey(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('takes secrets of 24 to 32 bytes, as other senders make them', () => {
    expect(webhookSecretKey(`whsec_${randomBytes(24).toString('base64')}`)).toHaveLength(24);
  });

  it.each([
    '',
    'whsec_',
    'whsk_abcd',
    `whsec_${randomBytes(16).toString('base64')}`,
    `whsec_${randomBytes(33).toString('base64')}`,
    'whsec_abc$',
  ])('refuses %j', (text) => {
    expect(webhookSecretKey(text)).toBeNull();
  });
});

describe('the key-encryption key setting', () => {
  it('takes base64 or base64url of exactly 32 bytes', () => {
    const key = randomBytes(32);
    expect(parseEncryptionKey(key.toString('base64'))).toEqual(key);
    expect(parseEncryptionKey(key.toString('base64url'))).toEqual(key);
  });

  it.each(['', 'not base64!', randomBytes(16).toString('base64'), randomBytes(33).toString('base64')])(
    'refuses %j',
    (text) => {
      expect(parseEncryptionKey(text)).toBeNull();
    },
  );
});

describe('message ids', () => {
  it('are msg_ and 22 base64url characters', () => {
    expect(newMessageId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  });
});

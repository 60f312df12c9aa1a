import { randomBytes } from 'node:crypto';

/** A message id of our own (a test delivery's): `msg_` and 16 random bytes, base64url. */
export function newMessageId(random: (size: number) => Buffer = randomBytes): string {
  return `msg_${random(16).toString('base64url')}`;
}

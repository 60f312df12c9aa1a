import { createHmac } from 'node:crypto';

/**
 * The visitor key: HMAC-SHA256 of the IP under a server secret. A plain hash
 * of an IPv4 address can be reversed by hashing all 2^32 of them; a keyed one
 * cannot without the key.
 */
export function visitorHash(secret: string, ip: string): string {
  return createHmac('sha256', secret).update(ip).digest('hex');
}

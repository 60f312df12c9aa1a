import { createHash } from 'node:crypto';
import { uuidText } from '@shortlink/events';

/** A request's work under its Idempotency-Key. */
export interface Work {
  /** The key record's work id and the request's hash. */
  id: string;
  /** Taken over from an earlier attempt that did not answer: it may have claimed links already. */
  resumed: boolean;
}

/**
 * The id of the `index`-th link (or of its LinkCreated event) that a request
 * under an Idempotency-Key creates, drawn from the key's work (its `work_id`
 * and the request's hash): the same for every attempt at the same request, so
 * an attempt that takes the key over from one that died finds what that one
 * claimed. A UUID of version 8 (RFC 9562's custom version): the first 122 bits
 * of SHA-256 of the work, the kind and the index.
 */
export function workIdentity(work: string, kind: 'link' | 'event', index: number): string {
  const bytes = createHash('sha256').update(`${work}\n${kind}\n${index}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return uuidText(bytes);
}

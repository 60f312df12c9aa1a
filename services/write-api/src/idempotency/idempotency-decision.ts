/** A response as it was sent, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  /** The headers that belong to the answer (`Location`), not to the connection. */
  headers: Record<string, string>;
  body: string;
}

/** What the key store holds for a key another request took first. */
export interface SeenRequest {
  requestHash: string;
  /** Null while that request is still at work. */
  response: StoredResponse | null;
}

export type IdempotencyDecision =
  { kind: 'replay'; response: StoredResponse } | { kind: 'mismatch' } | { kind: 'wait' };

/**
 * A request whose key another request holds: a different request under the
 * same key is refused (even while the first is at work, so a client bug shows
 * at once); the same request gets the first one's response, or waits for it.
 */
export function decideOnSeenKey(seen: SeenRequest, requestHash: string): IdempotencyDecision {
  if (seen.requestHash !== requestHash) return { kind: 'mismatch' };
  if (seen.response === null) return { kind: 'wait' };
  return { kind: 'replay', response: seen.response };
}

/**
 * Which responses a key keeps. Every answer the service gave on purpose is
 * final (a 201, a 400, a 409 for a taken slug) and is replayed. A 5xx is not:
 * the store or the log was away, the request may succeed when sent again, so
 * the key is released for the retry.
 */
export function isFinalResponse(status: number): boolean {
  return status < 500;
}

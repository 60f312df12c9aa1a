/**
 * Errors after which an idempotent producer's identity (its producer id and
 * sequence numbers) is no longer one the brokers accept. The Java client
 * bumps its epoch and carries on; kafkajs keeps failing every later send the
 * same way (seen in the fleet's chaos run: after a broker kill, one
 * redirector's click producer answered "out of order sequence number" to every
 * batch until its queue overflowed). The cure is a new producer.
 */
const LOST_IDENTITY = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'INVALID_PRODUCER_EPOCH',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/** True when `err`, or an error it was caused by (kafkajs wraps retried ones), says the producer identity is lost. */
export function producerIdentityLost(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && LOST_IDENTITY.has(type)) return true;
  }
  return false;
}

import { isNetworkError } from '@shortlink/network-errors';

/**
 * Postgres SQLSTATEs that pass by themselves: connection exceptions (08),
 * serialization failures and deadlocks (40), resources exhausted (53), a
 * lock not available (55P03), a statement cancelled or timed out (57014), a
 * server shutting down (57P0x).
 */
const POSTGRES_TRANSIENT = /^(08...|40001|40P01|53...|55P03|57014|57P0[1-3])$/;
/**
 * ClickHouse server error codes that pass by themselves: timeouts (159, 209),
 * network (210), memory (241), too many parts or queries (252, 202), a
 * replica read-only or its keeper away (242, 999), an insert of unknown
 * outcome (319; retried with the same deduplication token).
 */
/** (A ClickHouseError has the numeric code as a string and its name in `type`.) */
const CLICKHOUSE_TRANSIENT = new Set(['159', '202', '209', '210', '241', '242', '252', '319', '999']);

/**
 * True when a handler's failure says a dependency is away or busy (Postgres
 * restarting, ClickHouse overloaded, the broker electing a leader), so the
 * same message may succeed later and is retried with backoff for as long as
 * it takes. Anything else (a constraint the message breaks, a bug its
 * content triggers) is the message's own fault: retried a few times, then
 * parked, so it never stalls its partition.
 */
export function isTransientFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, type, cause, name, retriable } = error as {
    code?: unknown;
    type?: unknown;
    cause?: unknown;
    name?: unknown;
    retriable?: unknown;
  };
  if (isNetworkError(error)) return true;
  if (typeof code === 'string' && POSTGRES_TRANSIENT.test(code)) return true;
  if (typeof code === 'string' && CLICKHOUSE_TRANSIENT.has(code) && typeof type === 'string') return true;
  // kafkajs's own errors (a broker away, a leader moving, an append unacknowledged) while a handler appends.
  if (typeof name === 'string' && name.startsWith('KafkaJS')) return true;
  if (retriable === true) return true;
  return cause !== undefined && cause !== error && isTransientFailure(cause);
}

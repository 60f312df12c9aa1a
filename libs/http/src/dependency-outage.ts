import { DependencyTimeout } from './dependency-deadline';

/**
 * Socket-level failures: the store is unreachable, not the request wrong. The
 * same codes the consumers retry (`@shortlink/event-log`'s transient failures): a
 * network gone (`ENETUNREACH`) was a 500 here while a consumer waited it out.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/** Postgres SQLSTATEs of a server going away or full: connection exceptions (08), shutdown (57P0x), too many clients. */
const POSTGRES_OUTAGE = /^(08...|57P0[1-3]|53300)$/;
/** What `pg` and its pool say when the connection was lost, never came, or a query's answer did not (`query_timeout`). */
const POOL_OUTAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i;

/**
 * True when an error means a store this request needs is away for now
 * (Postgres restarting, ClickHouse down): the request may succeed if sent
 * again, so it is answered 503 with Retry-After, not 500.
 */
export function isDependencyOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof DependencyTimeout) return true;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && (UNREACHABLE.has(code) || POSTGRES_OUTAGE.test(code))) return true;
  if (typeof message === 'string' && POOL_OUTAGE.test(message)) return true;
  return cause !== undefined && cause !== error && isDependencyOutage(cause);
}

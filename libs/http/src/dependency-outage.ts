import { isNetworkError } from '@shortlink/network-errors';
import { DependencyTimeout } from './dependency-deadline';

/** Postgres SQLSTATEs of a server going away or full: connection exceptions (08), shutdown (57P0x), too many clients. */
const POSTGRES_OUTAGE = /^(08...|57P0[1-3]|53300)$/;
/** What `pg` says when a query's answer did not come (`query_timeout`). */
const QUERY_TIMEOUT = /Query read timeout/i;

/**
 * True when an error means a store this request needs is away for now
 * (Postgres restarting, ClickHouse down): the request may succeed if sent
 * again, so it is answered 503 with Retry-After, not 500.
 */
export function isDependencyOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof DependencyTimeout) return true;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (isNetworkError(error)) return true;
  if (typeof code === 'string' && POSTGRES_OUTAGE.test(code)) return true;
  if (typeof message === 'string' && QUERY_TIMEOUT.test(message)) return true;
  return cause !== undefined && cause !== error && isDependencyOutage(cause);
}

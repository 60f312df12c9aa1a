/** Socket-level failures: the other side is unreachable, not the message wrong. */
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
/** What `pg`'s pool says when a connection was lost or never came. */
const CONNECTION_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/**
 * True when this error itself (not its cause) says the other side could not be
 * reached: a socket error code, or `pg`'s pool losing or never getting a
 * connection. One list, so a request answered 503 and a consumer that waits
 * agree on what a network failure is; callers follow `cause` themselves.
 */
export function isNetworkError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  return typeof message === 'string' && CONNECTION_LOST.test(message);
}

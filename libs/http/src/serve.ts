import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { processStopSignals, SHUTDOWN_GRACE_MS, STOP_SIGNALS, type StopSignal } from './stop-signals';

export { SHUTDOWN_GRACE_MS };

export interface ServeOptions {
  host: string;
  port: number;
  /** How long in-flight work may take to finish on SIGTERM/SIGINT. */
  graceMs?: number;
  /** On a signal, how long to keep serving after `onDrain` before closing the port. */
  drainMs?: number;
  /** Called first on a signal: the process reports itself not ready. */
  onDrain?: () => void;
  /**
   * Runs after the server stopped accepting requests (consumers, pools,
   * producers); `deadline` is when it must be done, a moment before the
   * grace period ends.
   */
  onClose?: (deadline: number) => Promise<void>;
}

/** What is kept of the grace period for the pools and clients, after the modules' deadline. */
const ON_CLOSE_MARGIN_MS = 1_000;

/**
 * Connections the kernel completes before the process accepts them (capped
 * by `net.core.somaxconn`, 4,096 on current Linux). Node's 511 overflowed in a
 * burst of 2,000 new connections on a busy process: the kernel dropped
 * handshakes (retried by the clients a second later) and answered with SYN
 * cookies, and a client whose request took several segments, the first of
 * them dropped, had the rest refused by the cookie check and was reset before
 * its answer (TcpExtSyncookiesFailed, one reset each).
 */
const LISTEN_BACKLOG = 4096;

/**
 * Listens, and on a signal or a fatal error drains in-flight requests, then
 * closes everything else, within a grace period. The only place a service exits
 * once started. A signal that came while the process was starting closes it
 * without listening: the answer is then `undefined`.
 *
 * A second stop signal does not cut the first one's close short: close-with-grace
 * would exit at once, dropping the clicks a redirector still held, and two come
 * often (Ctrl-C reaches both npm and the process under `npm start`; a
 * supervisor may repeat its SIGTERM). The grace period still bounds the close.
 */
export async function serveUntilSignalled(app: FastifyInstance, options: ServeOptions): Promise<string | undefined> {
  let closing = false;
  let stopSignal: StopSignal | undefined;
  let serving = false;
  const drainMs = options.drainMs ?? 0;
  const delay = (options.graceMs ?? SHUTDOWN_GRACE_MS) + drainMs;
  const graceful = closeWithGrace({ delay, skip: [...STOP_SIGNALS] }, async ({ err }) => {
    closing = true;
    const deadline = Date.now() + delay - ON_CLOSE_MARGIN_MS;
    options.onDrain?.();
    if (err) app.log.error({ err }, 'fatal error, shutting down');
    else {
      app.log.info({ signal: stopSignal, drainMs: serving ? drainMs : 0, serving }, 'shutting down');
      // Load balancers see /healthz fail and stop sending; requests already on their way are still served.
      if (serving && drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
    }
    await app.close();
    await options.onClose?.(deadline);
  });
  processStopSignals().handOver((signal) => {
    if (closing) {
      app.log.warn({ signal }, 'already shutting down; the close goes on within its grace period');
      return;
    }
    closing = true;
    stopSignal = signal;
    void graceful.close();
  });
  // Signalled while starting: the close is under way, and ends the process.
  if (closing) return undefined;
  const address = await app.listen({ host: options.host, port: options.port, backlog: LISTEN_BACKLOG });
  serving = true;
  return address;
}

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
 * Connections the kernel completes before the process accepts them (capped by `net.core.somaxconn`). With Node's 511, a
 * burst of new connections overflowed it: handshakes were dropped or answered with SYN cookies, and a client whose
 * first segment was dropped was reset before its answer (docs/decisions/0038-listen-backlog-4096.md).
 */
const LISTEN_BACKLOG = 4096;

/**
 * Listens, and on a signal or a fatal error drains in-flight requests, then closes everything else within a grace
 * period: the only place a started service exits. A signal while starting closes it without listening (answer
 * `undefined`). A second signal does not cut the close short, since two come often (Ctrl-C reaches npm and the process;
 * supervisors repeat SIGTERM) and exiting at once would drop a redirector's held clicks; the grace still bounds it.
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

import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';

/** On a signal, how long in-flight work may take after the drain, unless a caller says otherwise. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  host: string;
  port: number;
  /** How long in-flight work may take to finish on SIGTERM/SIGINT. */
  graceMs?: number;
  /** On a signal, how long to keep serving after `onDrain` before closing the port. */
  drainMs?: number;
  /** Called first on a signal: the process reports itself not ready. */
  onDrain?: () => void;
  /** Runs after the server stopped accepting requests (consumers, pools, producers). */
  onClose?: () => Promise<void>;
}

/**
 * Listens, and on a signal or a fatal error drains in-flight requests, then
 * closes everything else, within a grace period. The only place a service exits.
 */
export async function serveUntilSignalled(app: FastifyInstance, options: ServeOptions): Promise<string> {
  const drainMs = options.drainMs ?? 0;
  closeWithGrace({ delay: (options.graceMs ?? SHUTDOWN_GRACE_MS) + drainMs }, async ({ signal, err }) => {
    options.onDrain?.();
    if (err) app.log.error({ err }, 'fatal error, shutting down');
    else {
      app.log.info({ signal, drainMs }, 'shutting down');
      // Load balancers see /healthz fail and stop sending; requests already on their way are still served.
      if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
    }
    await app.close();
    await options.onClose?.();
  });
  return app.listen({ host: options.host, port: options.port });
}

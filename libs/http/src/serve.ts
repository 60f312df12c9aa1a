import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';

export interface ServeOptions {
  host: string;
  port: number;
  /** How long in-flight work may take to finish on SIGTERM/SIGINT. */
  graceMs?: number;
  /** Runs after the server stopped accepting requests (consumers, pools, producers). */
  onClose?: () => Promise<void>;
}

/**
 * Listens, and on a signal or a fatal error drains in-flight requests, then
 * closes everything else, within a grace period. The only place a service exits.
 */
export async function serveUntilSignalled(app: FastifyInstance, options: ServeOptions): Promise<string> {
  closeWithGrace({ delay: options.graceMs ?? 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'fatal error, shutting down');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await options.onClose?.();
  });
  return app.listen({ host: options.host, port: options.port });
}

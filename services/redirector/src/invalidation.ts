import { Client } from 'pg';
import { CHANNELS } from '@shortlink/postgres';
import type { LinkCache } from './link-cache';

export interface InvalidationLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Listens for newly created slugs and drops their negative cache entries. On a
 * lost connection it forgets every negative entry (notifications may have been
 * missed) and reconnects with backoff.
 */
export function listenForNewLinks(
  connectionString: string,
  cache: LinkCache,
  logger: InvalidationLogger,
): { start: () => Promise<void>; stop: () => Promise<void> } {
  let client: Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const c = new Client({ connectionString, application_name: 'redirector-listen' });
    c.on('notification', (msg) => {
      if (msg.channel === CHANNELS.linkCreated && msg.payload) cache.forget(msg.payload);
    });
    c.on('error', (err) => {
      logger.warn({ err }, 'link notification connection lost; reconnecting');
      cache.forgetAllMisses();
      void c.end().catch(() => undefined);
      schedule(1000);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNELS.linkCreated}`);
    client = c;
  }

  function schedule(delayMs: number): void {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        logger.warn({ err }, 'could not listen for new links; retrying');
        schedule(Math.min(delayMs * 2, 30_000));
      });
    }, delayMs);
  }

  return {
    start: connect,
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

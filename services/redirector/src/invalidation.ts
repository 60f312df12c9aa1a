import { Client } from 'pg';
import { groupCommit } from '@shortlink/batching';
import { CHANNELS } from '@shortlink/postgres';
import type { LinkCache } from './link-cache';

export interface InvalidationLogger {
  warn(obj: object, msg: string): void;
}

export interface NewLinkListener {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves true once every "slug created" notification committed before the
   * call has been applied to the cache; false when that cannot be known (not
   * listening), and the caller must not trust a remembered "not found".
   */
  catchUp(): Promise<boolean>;
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
): NewLinkListener {
  let client: Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const c = new Client({ connectionString, application_name: 'redirector-listen' });
    c.on('notification', (msg) => {
      if (msg.channel === CHANNELS.linkCreated && msg.payload) cache.forget(msg.payload);
    });
    c.on('error', (err) => {
      if (client === c) client = undefined;
      logger.warn({ err }, 'link notification connection lost; reconnecting');
      cache.forgetAllMisses();
      void c.end().catch(() => undefined);
      schedule(1000);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNELS.linkCreated}`);
    // Misses remembered before LISTEN took effect may predate a creation whose
    // notification this connection never saw.
    cache.forgetAllMisses();
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

  /*
   * A round trip on the listening connection is a barrier. The creating
   * transaction signals every listener before its client hears "committed",
   * and Postgres sends a listener's pending notifications before it answers
   * the next query; pg emits them in order, before the query's promise
   * resolves. So once `SELECT 1` sent after a request arrived comes back, every
   * link created before that request (its 201 already sent) has been forgotten.
   * Callers that arrive while one is in flight share the next (a group
   * commit): never the one already sent, which may predate their request.
   */
  const catchUp = groupCommit(
    async (callers: unknown[]) => {
      const c = client;
      const caughtUp = c
        ? await c.query('SELECT 1').then(
            () => true,
            () => false,
          )
        : false;
      return callers.map(() => caughtUp);
    },
    { maxBatch: Number.POSITIVE_INFINITY, onFailure: 'fail-all' },
  );

  return {
    start: connect,
    catchUp: () => catchUp(undefined),
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}

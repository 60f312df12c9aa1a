import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { startSessionServer } from './session-server';

/** pg pools, the redirector's listener and the CLI share one PGlite through this many connections. */
const MAX_PG_CONNECTIONS = 64;

export interface EmbeddedPostgres {
  port: number;
  url: string;
  close(): Promise<void>;
}

export const postgresUrl = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;

/**
 * PGlite in `dir`, behind a Postgres wire-protocol socket on 127.0.0.1 that
 * runs each client's exchange whole (see `session-server.ts`).
 */
export async function startPostgres(dir: string, onError?: (error: Error) => void): Promise<EmbeddedPostgres> {
  // The link list's search index needs pg_trgm, which PGlite loads only when asked.
  const db = await PGlite.create(dir, { extensions: { pg_trgm } });
  const server = await startSessionServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: MAX_PG_CONNECTIONS,
    onError,
  });
  return {
    port: server.port,
    url: postgresUrl(server.port),
    async close() {
      await server.close();
      await db.close();
    },
  };
}

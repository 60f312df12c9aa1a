import { randomBytes } from 'node:crypto';
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

export const postgresUrl = (port: number, password: string) =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

/** A password for one run of the socket: whoever starts it hands it to its clients in the URL. */
export const newPostgresPassword = (): string => randomBytes(24).toString('base64url');

/**
 * PGlite in `dir`, behind a Postgres wire-protocol socket on 127.0.0.1 that
 * runs each client's exchange whole (see `session-server.ts`) and asks every
 * connection for `password`.
 */
export async function startPostgres(
  dir: string,
  password: string,
  onError?: (error: Error) => void,
): Promise<EmbeddedPostgres> {
  // The link list's search index needs pg_trgm, which PGlite loads only when asked.
  const db = await PGlite.create(dir, { extensions: { pg_trgm } });
  const server = await startSessionServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: MAX_PG_CONNECTIONS,
    password,
    onError,
  });
  return {
    port: server.port,
    url: postgresUrl(server.port, password),
    async close() {
      await server.close();
      await db.close();
    },
  };
}

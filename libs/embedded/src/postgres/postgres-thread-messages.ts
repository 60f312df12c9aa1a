/** What the main thread and the Postgres thread say to each other. */
/** The data directory, and the password its socket asks of every connection. */
export type PostgresThreadData = { dir: string; password: string };

export type ToPostgresThread = { type: 'close' };

export type FromPostgresThread =
  | { type: 'ready'; port: number }
  | { type: 'start-failed'; message: string }
  /** A session-server failure, for the log (the client gets its own answer). */
  | { type: 'error'; message: string }
  | { type: 'closed'; message?: string };

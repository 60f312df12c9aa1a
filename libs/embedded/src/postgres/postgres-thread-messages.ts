/** What the main thread and the Postgres thread say to each other. */
export type PostgresThreadData = { dir: string };

export type ToPostgresThread = { type: 'close' };

export type FromPostgresThread =
  | { type: 'ready'; port: number }
  | { type: 'start-failed'; message: string }
  /** A session-server failure, for the log (the client gets its own answer). */
  | { type: 'error'; message: string }
  | { type: 'closed'; message?: string };

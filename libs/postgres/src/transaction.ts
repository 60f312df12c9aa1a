import { DatabaseError, type Pool, type PoolClient, type QueryResult, type QueryResultRow } from 'pg';
import { withReadTimeout } from './links';

/** What a transaction's work may do with its connection: statements, nothing else. */
export interface Statements {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's own default row type
  query<R extends QueryResultRow = any>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

export interface TransactionOptions {
  /**
   * Each statement's answer, `COMMIT`'s included, is awaited this long at most
   * (pg's `query_timeout`). Past it the transaction fails and its connection is
   * closed, which rolls it back on the server: a stalled server holds neither
   * the caller nor the rows it locked once it wakes. Unbounded without it.
   */
  statementTimeoutMs?: number;
  /**
   * When (`Date.now()`) `COMMIT` must be sent at the latest: the wait for a connection and every statement before it
   * share what is left, and a wait past it fails as an outage with nothing done (a late connection goes back to the
   * pool). `COMMIT` itself has `statementTimeoutMs`. Without it each wait has its own bound, and a caller that waits
   * for one and then another waits for their sum.
   */
  commitBy?: number;
}

/** pg's own words for a connection that did not come in time, which callers already take for an outage. */
const CONNECT_TIMEOUT = 'timeout exceeded when trying to connect (the transaction had to commit by then)';

/**
 * `COMMIT` was sent and no answer came (it timed out, or the connection was
 * lost): the transaction may have taken effect or not, and nothing here can
 * tell. Unlike any failure before it, this one must not be reported as "not
 * done".
 */
export class CommitUnconfirmed extends Error {
  constructor(cause: unknown) {
    super('COMMIT was sent but not answered: the transaction may or may not have taken effect', { cause });
    this.name = 'CommitUnconfirmed';
  }
}

/**
 * Runs `work` in a transaction on a connection of its own: committed when it
 * resolves, rolled back when it throws (the error goes on). A connection that
 * failed mid-transaction is closed rather than handed to the next caller.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: Statements) => Promise<T>,
  { statementTimeoutMs, commitBy }: TransactionOptions = {},
): Promise<T> {
  const client = commitBy === undefined ? await pool.connect() : await connectBy(pool, commitBy);
  const query = (text: string, values: unknown[] | undefined, readTimeoutMs: number | undefined) =>
    client.query(withReadTimeout({ text, values }, { readTimeoutMs }));
  // Before COMMIT, what is left until commitBy (at least 1 ms: pg takes 0 for "no bound").
  const beforeCommit = () =>
    commitBy === undefined
      ? statementTimeoutMs
      : Math.max(1, Math.min(statementTimeoutMs ?? Infinity, commitBy - Date.now()));
  const statements: Statements = { query: (text, values) => query(text, values, beforeCommit()) };
  let broken: unknown;
  try {
    await statements.query('BEGIN');
    const result = await work(statements);
    await query('COMMIT', undefined, statementTimeoutMs).catch((error: unknown) => {
      throw answeredByServer(error) ? error : new CommitUnconfirmed(error);
    });
    return result;
  } catch (error) {
    broken = error;
    // A statement still unanswered holds the connection: a ROLLBACK would
    // only queue behind it. Closing the connection rolls back just the same.
    if (!unanswered(error)) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** A connection from the pool by `by`, or an outage; one that comes later goes back to the pool. */
async function connectBy(pool: Pool, by: number): Promise<PoolClient> {
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(CONNECT_TIMEOUT)), Math.max(0, by - Date.now()));
  });
  try {
    return await Promise.race([connecting, late]);
  } catch (error) {
    connecting.then(
      (client) => client.release(),
      () => undefined,
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A statement timed out: pg's own error for `query_timeout`, or a COMMIT's. */
function unanswered(error: unknown): boolean {
  return error instanceof CommitUnconfirmed || (error instanceof Error && error.message === 'Query read timeout');
}

/**
 * The server answered the statement with an error of the statement's own (a
 * constraint, a serialization failure): it is known not to have taken effect,
 * and the connection is fit for a ROLLBACK. A lost connection (class 08) or a
 * server going down (57) is no such answer.
 */
function answeredByServer(error: unknown): boolean {
  return error instanceof DatabaseError && !/^(08|57)/.test(error.code ?? '');
}

import { Session } from 'chdb';

export interface EngineResult {
  body: Uint8Array;
  rowsRead: number;
  bytesRead: number;
  elapsedSeconds: number;
}

export interface QueryRequest {
  sql: string;
  format: string;
  database: string;
  settings: Record<string, string>;
  params: Record<string, string>;
}

/** Statements that change the session itself rather than answer a query. */
const STATEFUL_STATEMENT = /^\s*(USE|SET)\b/i;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function settingLiteral(value: string): string {
  if (/^-?\d+(\.\d+)?$/.test(value)) return value;
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * One chdb session behind a queue. A chdb session keeps `SET` and `USE` state
 * between calls, unlike an HTTP request to a real server, so each request's
 * settings are applied, the query run, and the settings reset, one request at a
 * time. This serialises queries: fine for a local stand-in, and the reason it
 * is not a production server.
 */
export class ChdbEngine {
  readonly #session: Session;
  /** The session's current database (null: unknown) and the settings this engine set in it. */
  #database: string | null = null;
  readonly #applied = new Map<string, string>();
  #tail: Promise<unknown> = Promise.resolve();

  constructor(dataPath: string) {
    this.#session = new Session(dataPath);
  }

  run(request: QueryRequest): Promise<EngineResult> {
    const next = this.#tail.then(() => this.#runExclusive(request));
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /**
   * A query's result chunk by chunk, each in `format` on its own (a `WithNames` format repeats its header in every
   * chunk). The engine is held from the first chunk asked for until the iteration ends (done, `return()`, a throw or
   * `signal`), so the consumer must end it; the next query waits until then, as for `run`.
   */
  async *stream(request: QueryRequest, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const turn = this.#tail;
    this.#tail = turn.then(() => held);
    await turn;
    try {
      await this.#prepare(request);
      const { sql, params, format } = request;
      const chunks =
        Object.keys(params).length > 0
          ? this.#session.queryStreamBind(sql, params, { format, signal })
          : this.#session.queryStream(sql, { format, signal });
      // Breaking out of the loop (or a throw) cancels the chdb stream.
      for await (const chunk of chunks) yield chunk.raw();
    } finally {
      release();
    }
  }

  async #runExclusive(request: QueryRequest): Promise<EngineResult> {
    const { sql, format, params } = request;
    await this.#prepare(request);
    try {
      const result =
        Object.keys(params).length > 0
          ? await this.#session.queryBindAsync(sql, params, { format })
          : await this.#session.queryAsync(sql, { format });
      return {
        body: result.bytes(),
        rowsRead: result.rowsRead,
        bytesRead: result.bytesRead,
        elapsedSeconds: result.elapsed,
      };
    } finally {
      if (STATEFUL_STATEMENT.test(sql)) await this.#forgetSessionState(sql);
    }
  }

  /** Brings the session to the request's database and settings. */
  async #prepare({ database, settings }: QueryRequest): Promise<void> {
    if (!IDENTIFIER.test(database))
      throw new Error(`Code: 81. DB::Exception: Database ${database} does not exist. (UNKNOWN_DATABASE)`);
    // The session keeps USE and SET between calls, where a server applies them to
    // one request only. So the session is brought to exactly this request's
    // database and settings, changing only what differs from the last request:
    // a steady client (the same settings every time) costs no extra calls.
    if (this.#database !== database) {
      this.#database = null;
      await this.#session.queryAsync(`USE ${database}`, { format: 'TabSeparated' });
      this.#database = database;
    }
    const wanted = new Map<string, string>();
    for (const [name, value] of Object.entries(settings)) {
      if (!IDENTIFIER.test(name)) {
        throw new Error(`Code: 115. DB::Exception: Unknown setting '${name}'. (UNKNOWN_SETTING)`);
      }
      wanted.set(name, settingLiteral(value));
    }
    for (const name of [...this.#applied.keys()]) {
      if (!wanted.has(name)) await this.#set(name, null);
    }
    for (const [name, literal] of wanted) {
      if (this.#applied.get(name) !== literal) await this.#set(name, literal);
    }
  }

  /** Sets one setting (null: back to its default) and records what the session now holds. */
  async #set(name: string, literal: string | null): Promise<void> {
    this.#applied.delete(name);
    await this.#session.queryAsync(`SET ${name} = ${literal ?? 'DEFAULT'}`, { format: 'TabSeparated' });
    if (literal !== null) this.#applied.set(name, literal);
  }

  /**
   * A `USE` or `SET` sent as a query would outlive its request in the session;
   * on a server it would not. Undo it: forget the database, reset what it set.
   */
  async #forgetSessionState(sql: string): Promise<void> {
    this.#database = null;
    const names =
      /^\s*SET\s+(.*)$/is
        .exec(sql)?.[1]
        ?.split(',')
        .map((a) => a.split('=')[0]?.trim() ?? '') ?? [];
    for (const name of [...names, ...this.#applied.keys()]) {
      if (!IDENTIFIER.test(name)) continue;
      this.#applied.delete(name);
      await this.#session.queryAsync(`SET ${name} = DEFAULT`, { format: 'TabSeparated' }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.#tail;
    this.#session.close();
  }
}

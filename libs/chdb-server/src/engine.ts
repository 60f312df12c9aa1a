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
  #tail: Promise<unknown> = Promise.resolve();

  constructor(dataPath: string) {
    this.#session = new Session(dataPath);
  }

  run(request: QueryRequest): Promise<EngineResult> {
    const next = this.#tail.then(() => this.#runExclusive(request));
    this.#tail = next.catch(() => undefined);
    return next;
  }

  async #runExclusive({ sql, format, database, settings, params }: QueryRequest): Promise<EngineResult> {
    if (!IDENTIFIER.test(database))
      throw new Error(`Code: 81. DB::Exception: Database ${database} does not exist. (UNKNOWN_DATABASE)`);
    const applied: string[] = [];
    try {
      await this.#session.queryAsync(`USE ${database}`, { format: 'TabSeparated' });
      for (const [name, value] of Object.entries(settings)) {
        if (!IDENTIFIER.test(name)) {
          throw new Error(`Code: 115. DB::Exception: Unknown setting '${name}'. (UNKNOWN_SETTING)`);
        }
        await this.#session.queryAsync(`SET ${name} = ${settingLiteral(value)}`, { format: 'TabSeparated' });
        applied.push(name);
      }
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
      for (const name of applied) {
        await this.#session.queryAsync(`SET ${name} = DEFAULT`, { format: 'TabSeparated' }).catch(() => undefined);
      }
      await this.#session.queryAsync('USE default', { format: 'TabSeparated' }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.#tail;
    this.#session.close();
  }
}

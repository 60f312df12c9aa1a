import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import {
  endsExchange,
  isFlush,
  isQuery,
  isTerminate,
  listenChange,
  queryText,
  splitBackendOutput,
  splitClientFrames,
} from './wire-messages';

/**
 * A Postgres socket in front of PGlite's one backend session, for many client connections. A client's messages are
 * held until its exchange is whole (up to Sync, or a simple Query) and the exchange runs alone, so two clients' Parse,
 * Bind and Execute never interleave; an open transaction keeps the session until it is idle. Notifications go to the
 * connections listening on their channel, and listening connections go first when the session frees: theirs are the
 * short lease renewals the others wait on (docs/decisions/0040-embedded-postgres-session-server.md).
 */
export interface SessionServerOptions {
  db: PGlite;
  host: string;
  port: number;
  maxConnections: number;
  /**
   * Asked of every connection before it reaches the session (any user name),
   * in clear: the socket is on loopback. Without one, on that port any local
   * user could read the key hashes and the visitor-hash secret, or make keys.
   */
  password?: string;
  onError?: (error: Error) => void;
}

export interface SessionServer {
  port: number;
  close(): Promise<void>;
}

interface Exchange {
  messages: Uint8Array[];
  /** Ends with Flush: the client waits for answers before finishing it, so it keeps the session. */
  holds: boolean;
  /** Run for the server's own sake (a rollback after a disconnect): nobody reads the answer. */
  internal?: boolean;
}

class Connection {
  buffer: Buffer = Buffer.alloc(0);
  started = false;
  /** The startup packet of a connection asked for its password, held until the password is right. */
  awaitingPassword: Uint8Array | undefined;
  readonly exchanges: Exchange[] = [];
  current: Uint8Array[] = [];
  readonly listening = new Set<string>();
  queued = false;
  closed = false;
  constructor(readonly socket: Socket) {}
}

/** `Sync` then `ROLLBACK`: ends whatever a vanished client left open in the session. */
const ROLLBACK_EXCHANGE: Exchange = {
  messages: [new Uint8Array([0x53, 0, 0, 0, 4]), simpleQuery('ROLLBACK')],
  holds: false,
  internal: true,
};

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message[0] = 0x51;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return new Uint8Array(message);
}

/** A FATAL ErrorResponse, as Postgres ends a connection it will not serve. */
function fatal(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, 'utf8');
  const message = Buffer.alloc(5 + fields.length);
  message[0] = 0x45;
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

/** ErrorResponse 53300, as Postgres answers a connection over its limit. */
const tooManyConnections = (): Buffer => fatal('53300', 'sorry, too many clients already');

/** AuthenticationCleartextPassword. */
const ASK_PASSWORD = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);
const PASSWORD_MESSAGE = 0x70; // 'p'

const digest = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

/** The password of a PasswordMessage, as bytes: what follows the header, up to its terminating NUL. */
function passwordIn(message: Uint8Array): Uint8Array {
  const end = message.indexOf(0, 5);
  return message.subarray(5, end < 0 ? message.length : end);
}

export async function startSessionServer(options: SessionServerOptions): Promise<SessionServer> {
  const { db } = options;
  const connections = new Set<Connection>();
  const listeners = new Map<string, Set<Connection>>();
  /** Connections waiting for the session, one exchange a turn: the listening ones first. */
  const ready: Connection[] = [];
  const readyListening: Connection[] = [];
  const enqueue = (conn: Connection) => {
    conn.queued = true;
    (conn.listening.size > 0 ? readyListening : ready).push(conn);
  };
  /** The connection the session belongs to between its exchanges (open transaction, or mid-exchange). */
  let owner: Connection | null = null;
  let pumping = false;

  const report = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  function schedule(conn: Connection): void {
    if (conn !== owner && !conn.queued && conn.exchanges.length > 0) enqueue(conn);
    if (!pumping) void pump();
  }

  async function pump(): Promise<void> {
    pumping = true;
    try {
      for (;;) {
        let conn: Connection | undefined;
        if (owner) {
          if (owner.exchanges.length === 0) break;
          conn = owner;
        } else {
          conn = readyListening.shift() ?? ready.shift();
          if (!conn) break;
          conn.queued = false;
          if (conn.exchanges.length === 0) continue;
        }
        await run(conn, conn.exchanges.shift() as Exchange);
        // Behind the others of its kind: one exchange per turn.
        if (conn !== owner && conn.exchanges.length > 0 && !conn.queued) enqueue(conn);
      }
    } finally {
      pumping = false;
    }
  }

  async function run(conn: Connection, exchange: Exchange): Promise<void> {
    const chunks: Buffer[] = [];
    const input =
      exchange.messages.length === 1 ? (exchange.messages[0] as Uint8Array) : Buffer.concat(exchange.messages);
    try {
      await db.runExclusive(() =>
        db.execProtocolRawStream(input, { onRawData: (data) => chunks.push(Buffer.from(data)) }),
      );
    } catch (error) {
      // The engine itself failed, not a statement (those come back as ErrorResponse).
      report(error);
      if (owner === conn) owner = null;
      conn.socket.destroy();
      return;
    }
    const output = splitBackendOutput(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    owner = exchange.holds || output.status === 'T' || output.status === 'E' ? conn : null;
    // It went away while this ran, leaving the session mid-transaction: end that before anyone else runs.
    if (conn.closed && owner === conn && conn.exchanges.length === 0) conn.exchanges.push(ROLLBACK_EXCHANGE);
    if (exchange.internal) return;

    const only = exchange.messages.length === 1 ? exchange.messages[0] : undefined;
    if (only && isQuery(only[0] as number)) trackListen(conn, queryText(only));
    for (const notification of output.notifications) {
      for (const listener of listeners.get(notification.channel) ?? []) {
        if (listener !== conn && !listener.closed) listener.socket.write(notification.bytes);
      }
    }
    if (conn.closed) return;
    const own = output.notifications.filter((n) => conn.listening.has(n.channel)).map((n) => n.bytes);
    conn.socket.write(own.length > 0 ? Buffer.concat([...own, output.reply]) : output.reply);
  }

  function trackListen(conn: Connection, sql: string): void {
    const change = listenChange(sql);
    if (!change) return;
    if ('listen' in change) {
      conn.listening.add(change.listen);
      let set = listeners.get(change.listen);
      if (!set) listeners.set(change.listen, (set = new Set()));
      set.add(conn);
    } else {
      const channels = 'unlisten' in change ? [change.unlisten] : [...conn.listening];
      for (const channel of channels) {
        conn.listening.delete(channel);
        listeners.get(channel)?.delete(conn);
      }
    }
  }

  function receive(conn: Connection, data: Buffer): void {
    conn.buffer = conn.buffer.length === 0 ? data : Buffer.concat([conn.buffer, data]);
    let split;
    try {
      split = splitClientFrames(conn.buffer, conn.started);
    } catch (error) {
      report(error);
      conn.socket.destroy();
      return;
    }
    conn.buffer = conn.buffer.subarray(split.used);
    for (const frame of split.frames) {
      if (frame.kind === 'ssl') conn.socket.write('N');
      else if (frame.kind === 'cancel')
        conn.socket.end(); // not supported: the query runs to its end
      else if (frame.kind === 'startup') {
        conn.started = true;
        if (options.password === undefined) conn.exchanges.push({ messages: [frame.bytes], holds: false });
        else {
          conn.awaitingPassword = frame.bytes;
          conn.socket.write(ASK_PASSWORD);
        }
      } else if (conn.awaitingPassword) {
        const given = frame.type === PASSWORD_MESSAGE ? passwordIn(frame.bytes) : undefined;
        if (given === undefined || !timingSafeEqual(digest(given), digest(options.password ?? ''))) {
          conn.socket.end(fatal('28P01', 'password authentication failed'));
          return;
        }
        // Now the session answers the startup itself: AuthenticationOk, its parameters, ReadyForQuery.
        conn.exchanges.push({ messages: [conn.awaitingPassword], holds: false });
        conn.awaitingPassword = undefined;
      } else if (isTerminate(frame.type)) {
        conn.socket.end();
        return;
      } else {
        conn.current.push(frame.bytes);
        if (endsExchange(frame.type) || isFlush(frame.type)) {
          conn.exchanges.push({ messages: conn.current, holds: isFlush(frame.type) });
          conn.current = [];
        }
      }
    }
    schedule(conn);
  }

  function disconnect(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    connections.delete(conn);
    for (const channel of conn.listening) listeners.get(channel)?.delete(conn);
    conn.exchanges.length = 0;
    if (owner === conn) {
      // It left a transaction (or an exchange) open in the shared session: end it before anyone else runs.
      conn.exchanges.push(ROLLBACK_EXCHANGE);
      if (!pumping) void pump();
    }
  }

  const server = createServer((socket) => {
    if (connections.size >= options.maxConnections) {
      socket.end(tooManyConnections());
      return;
    }
    socket.setNoDelay(true);
    const conn = new Connection(socket);
    connections.add(conn);
    socket.on('data', (data) => receive(conn, data));
    socket.on('error', () => disconnect(conn));
    socket.on('close', () => disconnect(conn));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const conn of connections) conn.socket.destroy();
      await closed;
      // Let an exchange under way (and a rollback it leaves) finish before the engine closes.
      while (pumping) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

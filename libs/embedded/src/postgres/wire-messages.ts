/**
 * Just enough of the Postgres wire protocol (v3) to route whole exchanges
 * between many client connections and one backend session. Nothing here
 * interprets a query's meaning except LISTEN and UNLISTEN.
 */

const PROTOCOL_V3 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** Client message types that end an exchange: the backend answers them with ReadyForQuery. */
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
/** Flush asks for the answers so far without ending the exchange. */
const FLUSH = 0x48; // 'H'
const TERMINATE = 0x58; // 'X'

const NOTIFICATION = 0x41; // 'A'
const READY_FOR_QUERY = 0x5a; // 'Z'

export type ClientFrame =
  | { kind: 'startup'; bytes: Uint8Array }
  | { kind: 'ssl' }
  | { kind: 'cancel' }
  | { kind: 'message'; type: number; bytes: Uint8Array };

/**
 * Splits the bytes a client has sent into whole frames. `started` tells
 * whether the startup packet (which has no type byte) is behind us. Returns
 * the frames and how many bytes they used; the rest waits for more data.
 */
export function splitClientFrames(buffer: Buffer, started: boolean): { frames: ClientFrame[]; used: number } {
  const frames: ClientFrame[] = [];
  let at = 0;
  let startupDone = started;
  for (;;) {
    if (!startupDone) {
      if (buffer.length - at < 8) break;
      const length = buffer.readInt32BE(at);
      if (length < 8 || length > 10_000) throw new Error(`bad startup packet length ${length}`);
      if (buffer.length - at < length) break;
      const code = buffer.readInt32BE(at + 4);
      const bytes = buffer.subarray(at, at + length);
      at += length;
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) frames.push({ kind: 'ssl' });
      else if (code === CANCEL_REQUEST) frames.push({ kind: 'cancel' });
      else if (code === PROTOCOL_V3) {
        frames.push({ kind: 'startup', bytes: new Uint8Array(bytes) });
        startupDone = true;
      } else throw new Error(`unsupported protocol version ${code}`);
      continue;
    }
    if (buffer.length - at < 5) break;
    const length = buffer.readInt32BE(at + 1);
    if (length < 4) throw new Error(`bad message length ${length}`);
    if (buffer.length - at < 1 + length) break;
    const type = buffer[at] as number;
    frames.push({ kind: 'message', type, bytes: new Uint8Array(buffer.subarray(at, at + 1 + length)) });
    at += 1 + length;
  }
  return { frames, used: at };
}

export const endsExchange = (type: number): boolean => type === SYNC || type === QUERY;
export const isFlush = (type: number): boolean => type === FLUSH;
export const isTerminate = (type: number): boolean => type === TERMINATE;
export const isQuery = (type: number): boolean => type === QUERY;

/** The SQL text of a simple Query message. */
export function queryText(message: Uint8Array): string {
  const end = message.indexOf(0, 5);
  return Buffer.from(message.buffer, message.byteOffset + 5, (end < 0 ? message.length : end) - 5).toString('utf8');
}

export type ListenChange = { listen: string } | { unlisten: string } | { unlistenAll: true };

const LISTEN = /^\s*(UN)?LISTEN\s+(?:"((?:[^"]|"")+)"|([A-Za-z_][\w$]*|\*))\s*;?\s*$/i;

/** A LISTEN or UNLISTEN statement sent as a simple query, as `pg` sends them. */
export function listenChange(sql: string): ListenChange | null {
  const m = LISTEN.exec(sql);
  if (!m) return null;
  const channel = m[2] !== undefined ? m[2].replace(/""/g, '"') : (m[3] as string).toLowerCase();
  if (m[1]) return channel === '*' && m[2] === undefined ? { unlistenAll: true } : { unlisten: channel };
  return { listen: channel };
}

export interface BackendOutput {
  /** The bytes for the client that ran the exchange, notifications removed. */
  reply: Buffer;
  /** NotificationResponse messages, whole, with their channel. */
  notifications: { channel: string; bytes: Buffer }[];
  /** The transaction status of the last ReadyForQuery ('I', 'T' or 'E'), if one was sent. */
  status: 'I' | 'T' | 'E' | null;
}

/** Takes the backend's answer to an exchange apart: the client's reply, and the notifications to route. */
export function splitBackendOutput(output: Buffer): BackendOutput {
  const notifications: BackendOutput['notifications'] = [];
  const kept: Buffer[] = [];
  let status: BackendOutput['status'] = null;
  let at = 0;
  let keptFrom = 0;
  while (output.length - at >= 5) {
    const type = output[at] as number;
    const end = at + 1 + output.readInt32BE(at + 1);
    if (end > output.length) break;
    if (type === READY_FOR_QUERY) status = String.fromCharCode(output[at + 5] as number) as 'I' | 'T' | 'E';
    if (type === NOTIFICATION) {
      if (at > keptFrom) kept.push(output.subarray(keptFrom, at));
      const channelEnd = output.indexOf(0, at + 9);
      notifications.push({
        channel: output.subarray(at + 9, channelEnd).toString('utf8'),
        bytes: Buffer.from(output.subarray(at, end)),
      });
      keptFrom = end;
    }
    at = end;
  }
  if (keptFrom < output.length) kept.push(output.subarray(keptFrom));
  return { reply: kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept), notifications, status };
}

import { isUtf8 } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';

/** One record as the log stores it; the same fields a Kafka record has. */
export interface StoredRecord {
  offset: bigint;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}

export interface NewRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}

/**
 * One line per record. Text stays text (`k`, `v`), so `tail` shows the events;
 * bytes that are not valid UTF-8 go as base64 (`kb`, `vb`), so nothing is altered.
 */
interface Line {
  o: string;
  t: number;
  k?: string;
  kb?: string;
  v?: string;
  vb?: string;
  h?: Record<string, string>;
}

function encodeBytes(bytes: Buffer | null, text: 'k' | 'v', base64: 'kb' | 'vb', line: Line): void {
  if (bytes === null) return;
  // Valid UTF-8 reads back as the same bytes, so it may be stored as text.
  if (isUtf8(bytes)) line[text] = bytes.toString('utf8');
  else line[base64] = bytes.toString('base64');
}

function decodeBytes(text: string | undefined, base64: string | undefined): Buffer | null {
  if (text !== undefined) return Buffer.from(text, 'utf8');
  if (base64 !== undefined) return Buffer.from(base64, 'base64');
  return null;
}

function toLine(offset: bigint, timestamp: number, record: NewRecord): string {
  const line: Line = { o: offset.toString(), t: timestamp };
  encodeBytes(record.key, 'k', 'kb', line);
  encodeBytes(record.value, 'v', 'vb', line);
  const headers = Object.entries(record.headers);
  if (headers.length > 0) line.h = Object.fromEntries(headers.map(([k, v]) => [k, v.toString('utf8')]));
  return `${JSON.stringify(line)}\n`;
}

function fromLine(text: string): StoredRecord {
  const line = JSON.parse(text) as Line;
  return {
    offset: BigInt(line.o),
    timestamp: line.t,
    key: decodeBytes(line.k, line.kb),
    value: decodeBytes(line.v, line.vb),
    headers: Object.fromEntries(Object.entries(line.h ?? {}).map(([k, v]) => [k, Buffer.from(v, 'utf8')])),
  };
}

/**
 * Bytes of the latest records a partition keeps decoded in memory: consumers
 * that keep up (the usual case) read them there, not from the file.
 */
const DEFAULT_TAIL_BYTES = 8 * 1024 * 1024;

/**
 * The records of one topic partition in one append-only file. An append is flushed (`fdatasync`) before it resolves:
 * the `acks=all` of a one-node log. A partial last line left by a kill was never acknowledged and is cut off on open. A
 * failed append is taken back out of the file before the next, or the next record would share its offset and a reopen
 * would keep the refused one and cut the acknowledged one; if it cannot be taken out, the partition refuses every
 * append until reopened.
 */
export class PartitionLog {
  /** Byte position of each record's line, by offset. */
  private readonly positions: number[] = [];
  private size = 0;
  private tail: Promise<unknown> = Promise.resolve();
  /** The latest records as appended, from offset `recentStart` on, and the bytes their lines take. */
  private recent: StoredRecord[] = [];
  private recentStart = 0;
  private recentBytes = 0;
  /** Set when a failed append could not be taken back out: the file's end is not known. */
  private broken: Error | undefined;

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
    private readonly tailBytes: number,
  ) {}

  static async open(path: string, tailBytes = DEFAULT_TAIL_BYTES): Promise<PartitionLog> {
    const file = await open(path, 'a+');
    const log = new PartitionLog(file, path, tailBytes);
    await log.recover();
    return log;
  }

  /** The offset the next record will get (Kafka's high watermark). */
  get endOffset(): bigint {
    return BigInt(this.positions.length);
  }

  private async recover(): Promise<void> {
    const { size } = await this.file.stat();
    const content = size > 0 ? (await this.file.read(Buffer.alloc(size), 0, size, 0)).buffer : Buffer.alloc(0);
    let position = 0;
    while (position < content.length) {
      const end = content.indexOf(0x0a, position);
      if (end === -1) break;
      try {
        const record = fromLine(content.subarray(position, end).toString('utf8'));
        if (record.offset !== BigInt(this.positions.length)) break;
      } catch {
        break;
      }
      this.positions.push(position);
      position = end + 1;
    }
    if (position < content.length) {
      // A torn or corrupt tail: never acknowledged, so it is not part of the log.
      await this.file.truncate(position);
      await this.file.datasync();
    }
    this.size = position;
    this.recentStart = this.positions.length;
  }

  /** Bytes stored from `offset` to the end (0 at or past the end): what a fetch from there could return. */
  bytesFrom(offset: bigint): number {
    if (offset < 0n || offset >= BigInt(this.positions.length)) return 0;
    return this.size - this.positions[Number(offset)]!;
  }

  /** Appends records in order; resolves with the first one's offset once they are on disk. */
  append(records: readonly NewRecord[], now: number): Promise<bigint> {
    const result = this.tail.then(async () => {
      if (this.broken) throw this.broken;
      const base = this.endOffset;
      const lines = records.map((r, i) => toLine(base + BigInt(i), now, r));
      const bytes = Buffer.from(lines.join(''), 'utf8');
      try {
        const { bytesWritten } = await this.file.write(bytes, 0, bytes.length, null);
        if (bytesWritten !== bytes.length) throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
        await this.file.datasync();
      } catch (err) {
        await this.takeBack(err);
        throw err;
      }
      let position = this.size;
      for (const line of lines) {
        this.positions.push(position);
        position += Buffer.byteLength(line);
      }
      this.size = position;
      this.remember(records, base, now, bytes.length);
      return base;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Cuts the file back to its last acknowledged record, or marks the partition broken. */
  private async takeBack(cause: unknown): Promise<void> {
    try {
      await this.file.truncate(this.size);
      await this.file.datasync();
    } catch {
      this.broken = new Error(
        `${this.path}: a failed append could not be taken back out of the file; open the log again to recover it`,
        { cause },
      );
    }
  }

  private remember(records: readonly NewRecord[], base: bigint, timestamp: number, bytes: number): void {
    if (this.recentStart + this.recent.length !== Number(base)) {
      this.recent = [];
      this.recentStart = Number(base);
      this.recentBytes = 0;
    }
    records.forEach((r, i) =>
      this.recent.push({ offset: base + BigInt(i), timestamp, key: r.key, value: r.value, headers: r.headers }),
    );
    this.recentBytes += bytes;
    if (this.recentBytes <= this.tailBytes) return;
    // Drop the oldest half at once, so that trimming costs little per append.
    let drop = 0;
    const keep = this.tailBytes / 2;
    while (this.recentBytes > keep && drop < this.recent.length) {
      this.recentBytes -= this.lineBytes(this.recentStart + drop);
      drop++;
    }
    this.recent = this.recent.slice(drop);
    this.recentStart += drop;
  }

  private lineBytes(offset: number): number {
    return (this.positions[offset + 1] ?? this.size) - this.positions[offset]!;
  }

  /**
   * Records from `offset` on, up to about `maxBytes` (always at least one record
   * when there is one, as Kafka does, so a large record cannot stall a consumer).
   */
  async read(offset: bigint, maxBytes: number): Promise<StoredRecord[]> {
    const count = this.positions.length;
    if (offset < 0n || offset >= BigInt(count)) return [];
    const first = Number(offset);
    const start = this.positions[first]!;
    let last = first;
    while (last + 1 < count && this.positions[last + 1]! - start < maxBytes) last++;
    if (first >= this.recentStart) {
      return this.recent.slice(first - this.recentStart, last + 1 - this.recentStart);
    }
    const end = last + 1 < count ? this.positions[last + 1]! : this.size;
    const { buffer } = await this.file.read(Buffer.alloc(end - start), 0, end - start, start);
    const records: StoredRecord[] = [];
    let position = 0;
    for (let i = first; i <= last; i++) {
      const next = i + 1 <= last ? this.positions[i + 1]! - start : buffer.length;
      records.push(fromLine(buffer.subarray(position, next - 1).toString('utf8')));
      position = next;
    }
    return records;
  }

  async close(): Promise<void> {
    await this.tail;
    await this.file.close();
  }
}

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
  const asText = bytes.toString('utf8');
  if (Buffer.byteLength(asText) === bytes.length && Buffer.from(asText, 'utf8').equals(bytes)) line[text] = asText;
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
 * The records of one topic partition in one append-only file. Appends are
 * written and flushed to disk (`fdatasync`) before they resolve: that is the
 * `acks=all` of a one-node log. A process killed mid-write leaves at most a
 * partial last line, which is cut off when the file is next opened; it was
 * never acknowledged.
 */
export class PartitionLog {
  /** Byte position of each record's line, by offset. */
  private readonly positions: number[] = [];
  private size = 0;
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
  ) {}

  static async open(path: string): Promise<PartitionLog> {
    const file = await open(path, 'a+');
    const log = new PartitionLog(file, path);
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
  }

  /** Bytes stored from `offset` to the end (0 at or past the end): what a fetch from there could return. */
  bytesFrom(offset: bigint): number {
    if (offset < 0n || offset >= BigInt(this.positions.length)) return 0;
    return this.size - this.positions[Number(offset)]!;
  }

  /** Appends records in order; resolves with the first one's offset once they are on disk. */
  append(records: readonly NewRecord[], now: number): Promise<bigint> {
    const result = this.tail.then(async () => {
      const base = this.endOffset;
      const lines = records.map((r, i) => toLine(base + BigInt(i), now, r));
      const bytes = Buffer.from(lines.join(''), 'utf8');
      await this.file.write(bytes, 0, bytes.length, null);
      await this.file.datasync();
      let position = this.size;
      for (const line of lines) {
        this.positions.push(position);
        position += Buffer.byteLength(line);
      }
      this.size = position;
      return base;
    });
    this.tail = result.catch(() => undefined);
    return result;
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

import { EventEmitter } from 'node:events';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PartitionLog, type NewRecord, type StoredRecord } from './partition-log';

export interface TopicConfig {
  topic: string;
  numPartitions: number;
}

type GroupOffsets = Record<string, Record<string, string>>;

/** File names from topic and group names, which may hold characters a file system refuses. */
const fileName = (name: string) => encodeURIComponent(name);

/**
 * A durable, single-node event log under one directory: topics split into
 * partitions (one append-only file each), and consumer groups whose committed
 * offsets are kept on disk. It is what `npm start` uses when no Kafka is
 * configured; the Kafka-shaped client (`embedded-client.ts`) is what the
 * services see.
 */
export class EventLog {
  private readonly topics = new Map<string, PartitionLog[]>();
  private readonly groupWrites = new Map<string, Promise<unknown>>();
  /** Emits `append` (topic) after records are durable, to wake idle consumers. */
  readonly events = new EventEmitter();

  private constructor(
    readonly dir: string,
    private readonly tailBytes?: number,
  ) {
    this.events.setMaxListeners(0);
  }

  /** `tailBytes`: how much of each partition's end is kept decoded in memory (see PartitionLog). */
  static async open(dir: string, options: { tailBytes?: number } = {}): Promise<EventLog> {
    const log = new EventLog(dir, options.tailBytes);
    await mkdir(join(dir, 'topics'), { recursive: true });
    await mkdir(join(dir, 'groups'), { recursive: true });
    for (const entry of await readdir(join(dir, 'topics'))) {
      const config = JSON.parse(await readFile(join(dir, 'topics', entry, 'topic.json'), 'utf8')) as TopicConfig;
      await log.load(config);
    }
    return log;
  }

  private async load(config: TopicConfig): Promise<void> {
    const dir = join(this.dir, 'topics', fileName(config.topic));
    const partitions: PartitionLog[] = [];
    for (let p = 0; p < config.numPartitions; p++)
      partitions.push(await PartitionLog.open(join(dir, `${p}.log`), this.tailBytes));
    this.topics.set(config.topic, partitions);
  }

  listTopics(): string[] {
    return [...this.topics.keys()];
  }

  /** Creates a topic; false when it already exists (its partition count is kept). */
  async createTopic(config: TopicConfig): Promise<boolean> {
    if (this.topics.has(config.topic)) return false;
    const dir = join(this.dir, 'topics', fileName(config.topic));
    await mkdir(dir, { recursive: true });
    await writeDurably(join(dir, 'topic.json'), JSON.stringify(config));
    await this.load(config);
    return true;
  }

  partitions(topic: string): PartitionLog[] {
    const partitions = this.topics.get(topic);
    if (!partitions) throw new UnknownTopicError(topic);
    return partitions;
  }

  async append(topic: string, partition: number, records: readonly NewRecord[]): Promise<bigint> {
    const log = this.partitions(topic)[partition];
    if (!log) throw new UnknownTopicError(`${topic}/${partition}`);
    const base = await log.append(records, Date.now());
    this.events.emit('append', topic);
    return base;
  }

  read(topic: string, partition: number, offset: bigint, maxBytes: number): Promise<StoredRecord[]> {
    const log = this.partitions(topic)[partition];
    if (!log) throw new UnknownTopicError(`${topic}/${partition}`);
    return log.read(offset, maxBytes);
  }

  /** Bytes stored in a partition from `offset` on. */
  bytesFrom(topic: string, partition: number, offset: bigint): number {
    return this.partitions(topic)[partition]?.bytesFrom(offset) ?? 0;
  }

  endOffsets(topic: string): bigint[] {
    return this.partitions(topic).map((p) => p.endOffset);
  }

  async committed(groupId: string): Promise<GroupOffsets> {
    await this.groupWrites.get(groupId);
    try {
      return JSON.parse(await readFile(this.groupFile(groupId), 'utf8')) as GroupOffsets;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
  }

  /** Commits offsets (the next offset to read, as Kafka does); durable when it resolves. */
  commit(groupId: string, offsets: readonly { topic: string; partition: number; offset: string }[]): Promise<void> {
    const previous = this.groupWrites.get(groupId) ?? Promise.resolve();
    const write = previous.then(async () => {
      const current = await readFile(this.groupFile(groupId), 'utf8').then(
        (text) => JSON.parse(text) as GroupOffsets,
        (): GroupOffsets => ({}),
      );
      for (const { topic, partition, offset } of offsets) {
        (current[topic] ??= {})[String(partition)] = offset;
      }
      await writeDurably(this.groupFile(groupId), JSON.stringify(current));
    });
    this.groupWrites.set(
      groupId,
      write.catch(() => undefined),
    );
    return write;
  }

  async groups(): Promise<string[]> {
    return (await readdir(join(this.dir, 'groups')))
      .filter((f) => f.endsWith('.json'))
      .map((f) => decodeURIComponent(f.slice(0, -'.json'.length)));
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.groupWrites.get(groupId);
    await rm(this.groupFile(groupId), { force: true });
  }

  private groupFile(groupId: string): string {
    return join(this.dir, 'groups', `${fileName(groupId)}.json`);
  }

  async close(): Promise<void> {
    await Promise.all([...this.groupWrites.values()]);
    for (const partitions of this.topics.values()) for (const p of partitions) await p.close();
  }
}

export class UnknownTopicError extends Error {
  constructor(topic: string) {
    super(`This server does not host this topic-partition: ${topic}`);
    this.name = 'UnknownTopicError';
  }
}

/** Write, flush, then rename over the old file: a reader sees the old or the new content, whole. */
async function writeDurably(path: string, content: string): Promise<void> {
  const temp = `${path}.tmp`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(content, 'utf8');
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
}

import { CLICKS_PER_RECORD, encodeClickLines } from '@shortlink/events';
import {
  EVENT_HEADERS,
  partitionOfKey,
  type LogAdmin,
  type LogProducer,
  type OutgoingRecord,
} from '@shortlink/event-log';
import type { ClickEventLines } from './click-event';

/** How long the clicks topic's partition count is trusted before it is asked again. */
const PARTITION_COUNT_TTL_MS = 60_000;

/**
 * The clicks topic's partition count, asked of the log when first needed and
 * again once a minute, so that a partition increase is seen without a restart.
 */
export function topicPartitionCount(ask: () => Promise<number>, now: () => number = Date.now) {
  let known: { count: number; at: number } | undefined;
  return async (): Promise<number> => {
    if (known && now() - known.at < PARTITION_COUNT_TTL_MS) return known.count;
    const count = await ask();
    if (count === 0) throw Object.assign(new Error('the clicks topic has no partitions'), { retriable: true });
    known = { count, at: now() };
    return count;
  };
}

/** The partition count as the event log's admin tells it (the embedded log, or kafkajs). */
export function adminPartitionCount(admin: LogAdmin, topic: string): () => Promise<number> {
  let connected: Promise<void> | undefined;
  return async () => {
    connected ??= admin.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    await connected;
    return (await admin.partitionOffsets(topic)).length;
  };
}

/**
 * Most bytes of click lines in one record. A record is at most
 * CLICKS_PER_RECORD lines, but a line can be a few kilobytes (a user agent
 * of 1,024 characters, each up to three bytes): a record that would pass
 * this is split in two, as often as needed.
 */
export const CLICK_RECORD_BYTES = 256 * 1024;
/**
 * Most bytes of click records one append puts in one partition. Kafka takes a request's records for a partition as one
 * batch and refuses one over the topic's `max.message.bytes` (1 MB by default) with a fatal error, so long random user
 * agents on one link could make a batch be retried for ever. Uncompressed bytes are counted, so lines that do not
 * compress stay below the limit too; a batch over it goes in several appends.
 */
export const CLICK_PARTITION_BYTES = 768 * 1024;

/**
 * Clicks as records of `shortlink.clicks.v2`: a batch's clicks are grouped by their link's partition, each group in
 * records of up to CLICKS_PER_RECORD clicks (and CLICK_RECORD_BYTES), keyed by the first click's link id, appended one
 * after the other. So a link's clicks stay in its partition, in order, and a resent batch groups the same way: a click
 * held twice is twice in one partition, where the projector drops the repeat
 * (docs/decisions/0001-clicks-several-to-a-record.md).
 */
export function clickAppends(clicks: ClickEventLines, partitionCount: number): OutgoingRecord[][] {
  const { lines, linkIds, linkIndex } = clicks;
  // A link's partition is a hash of its id: worked out once for each link of the batch.
  const partitionOf = linkIds.map((linkId) => partitionOfKey(linkId, partitionCount));
  const groups = new Map<number, number[]>();
  for (let i = 0; i < lines.length; i++) {
    const partition = partitionOf[linkIndex[i]!]!;
    const group = groups.get(partition);
    if (group) group.push(i);
    else groups.set(partition, [i]);
  }
  const recordsOf = (members: number[]): (OutgoingRecord & { value: Buffer })[] => {
    const value = encodeClickLines(members.map((i) => lines[i]!));
    if (value.length > CLICK_RECORD_BYTES && members.length > 1) {
      const half = members.length >> 1;
      return [...recordsOf(members.slice(0, half)), ...recordsOf(members.slice(half))];
    }
    return [
      {
        key: linkIds[linkIndex[members[0]!]!]!,
        value,
        headers: { [EVENT_HEADERS.type]: 'ClickRecorded', [EVENT_HEADERS.count]: String(members.length) },
      },
    ];
  };
  const appends: OutgoingRecord[][] = [];
  for (const group of groups.values()) {
    let append = 0;
    let bytes = 0;
    for (let start = 0; start < group.length; start += CLICKS_PER_RECORD) {
      for (const record of recordsOf(group.slice(start, start + CLICKS_PER_RECORD))) {
        const size = record.value.length;
        if (bytes > 0 && bytes + size > CLICK_PARTITION_BYTES) {
          append++;
          bytes = 0;
        }
        (appends[append] ??= []).push(record);
        bytes += size;
      }
    }
  }
  return appends;
}

/** Every record of a batch's appends, in order (the bench's producers, which append themselves). */
export function clickRecords(clicks: ClickEventLines, partitionCount: number): OutgoingRecord[] {
  return clickAppends(clicks, partitionCount).flat();
}

export interface ClickRecordsAppenderOptions {
  producer: LogProducer;
  /** The clicks topic's partition count, as the log tells it (cached here for a minute). */
  partitionCount: () => Promise<number>;
  topic: string;
}

/** Appends a batch of clicks in as few records and appends as the rules above allow; resolves once all are durable. */
export function clickRecordsAppender({ producer, topic, ...options }: ClickRecordsAppenderOptions) {
  const partitionCount = topicPartitionCount(options.partitionCount);
  return async (clicks: ClickEventLines): Promise<void> => {
    // LZ4: a batch of clicks is about 2.6 times smaller, and kafkajs copies and
    // checksums each batch several times on its way to the socket; the click
    // worker spends about a third less (docs/decisions/0004-lz4-on-the-clicks-topic.md).
    for (const records of clickAppends(clicks, await partitionCount())) {
      await producer.append(topic, records, { compression: 'lz4' });
    }
  };
}

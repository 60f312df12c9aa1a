import { CLICKS_PER_RECORD, encodeClickLines } from '@shortlink/events';
import { EVENT_HEADERS, partitionOfKey, type LogAdmin, type LogProducer, type OutgoingRecord } from '@shortlink/kafka';
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
 * Clicks as records of the clicks topic (`shortlink.clicks.v2`): the clicks
 * of a batch are grouped by the partition their link id goes to, and each
 * group becomes records of up to CLICKS_PER_RECORD clicks, keyed by the link
 * id of the first. So every click of a link is still in its link's partition
 * (in order, as before), and a batch sent again groups its clicks the same
 * way: a click held twice is twice in one partition, where the projector
 * drops the repeat.
 */
export function clickRecords(clicks: ClickEventLines, partitionCount: number): OutgoingRecord[] {
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
  const records: OutgoingRecord[] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.length; start += CLICKS_PER_RECORD) {
      const members = group.slice(start, start + CLICKS_PER_RECORD);
      records.push({
        key: linkIds[linkIndex[members[0]!]!]!,
        value: encodeClickLines(members.map((i) => lines[i]!)),
        headers: { [EVENT_HEADERS.type]: 'ClickRecorded', [EVENT_HEADERS.count]: String(members.length) },
      });
    }
  }
  return records;
}

export interface ClickRecordsAppenderOptions {
  producer: LogProducer;
  /** The clicks topic's partition count, as the log tells it (cached here for a minute). */
  partitionCount: () => Promise<number>;
  topic: string;
}

/** Appends a batch of clicks in as few records as the rule above allows; resolves once they are durable. */
export function clickRecordsAppender({ producer, topic, ...options }: ClickRecordsAppenderOptions) {
  const partitionCount = topicPartitionCount(options.partitionCount);
  return async (clicks: ClickEventLines): Promise<void> => {
    // LZ4: a batch of clicks is about 2.6 times smaller, and kafkajs copies and
    // checksums each batch several times on its way to the socket; the click
    // worker spends about a third less (docs/performance.md).
    await producer.append(topic, clickRecords(clicks, await partitionCount()), { compression: 'lz4' });
  };
}

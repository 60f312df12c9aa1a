import type { ICustomPartitioner, Message, RecordMetadata } from 'kafkajs';

/**
 * kafkajs can resolve a send without writing some of its records. A send
 * spanning several leaders keeps the answers of the brokers that succeeded
 * and, on a retry, asks only brokers that have not answered yet; when a
 * failed partition's leadership moved to a broker that had answered (a broker
 * killed mid-send), that partition is sent nowhere, and the send still
 * succeeds. A topic whose metadata lists no partition drops every record the
 * same way. Seen on three brokers with one killed under concurrent appends:
 * 1 to 16 of 64,000 acknowledged records missing from the topic.
 *
 * So the adapter checks the answer itself: each record's partition, as the
 * partitioner chose it, must be among the partitions the send acknowledged;
 * records that are not are sent again.
 */
export interface PartitionRecorder {
  /** The partitioner to give kafkajs: `inner`'s choice, remembered per message object. */
  createPartitioner: ICustomPartitioner;
  /** The partition the last send chose for `message`, if it was partitioned at all. */
  partitionOf: (message: Message) => number | undefined;
}

export function recordPartitions(inner: ICustomPartitioner): PartitionRecorder {
  const chosen = new WeakMap<Message, number>();
  return {
    createPartitioner: () => {
      const partition = inner();
      return (args) => {
        const p = partition(args);
        chosen.set(args.message, p);
        return p;
      };
    },
    partitionOf: (message) => chosen.get(message),
  };
}

/** The messages of `topic` whose partition is not among those the send acknowledged without error. */
export function unacknowledgedRecords(
  topic: string,
  messages: readonly Message[],
  acknowledged: readonly RecordMetadata[],
  partitionOf: (message: Message) => number | undefined,
): Message[] {
  const written = new Set<number>();
  for (const m of acknowledged) if (m.topicName === topic && m.errorCode === 0) written.add(m.partition);
  return messages.filter((message) => {
    const partition = partitionOf(message);
    return partition === undefined || !written.has(partition);
  });
}

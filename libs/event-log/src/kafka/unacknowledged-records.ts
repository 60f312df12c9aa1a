import type { ICustomPartitioner, Message, RecordMetadata } from 'kafkajs';

/**
 * kafkajs can resolve a send without writing some of its records: a retry asks only the brokers that have not answered,
 * so a partition whose leadership moved to one that had answered is sent nowhere, and a topic whose metadata lists no
 * partition drops every record the same way. So the adapter checks the answer itself: each record's partition, as the
 * partitioner chose it, must be among those the send acknowledged, or the record is sent again
 * (docs/decisions/0022-every-send-checked-partition-by-partition.md).
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

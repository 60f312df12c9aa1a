import { LRUCache } from 'lru-cache';
import { Partitioners, type ICustomPartitioner, type PartitionerArgs, type PartitionMetadata } from 'kafkajs';

/**
 * Kafka's default partitioning (murmur2 of the key, as the Java client, so a key lands in the same partition whoever
 * produces it), remembered per key: kafkajs computes murmur2 in emulated 64-bit arithmetic on every record, a large
 * share of the click producer's CPU, and keys repeat (a popular link's clicks carry its id). A key's partition changes
 * only with the partition count, which is part of the memo key.
 */
export const MemoizedDefaultPartitioner: ICustomPartitioner = () => {
  const partitioner = Partitioners.DefaultPartitioner();
  const byPartitionCount = new Map<number, LRUCache<string, number>>();
  return (args: PartitionerArgs): number => {
    const { key, partition } = args.message;
    if (typeof key !== 'string' || (partition !== undefined && partition !== null)) return partitioner(args);
    const count = args.partitionMetadata.length;
    let memo = byPartitionCount.get(count);
    if (!memo) {
      memo = new LRUCache<string, number>({ max: 100_000 });
      byPartitionCount.set(count, memo);
    }
    let chosen = memo.get(key);
    if (chosen === undefined) {
      chosen = partitioner(args);
      memo.set(key, chosen);
    }
    return chosen;
  };
};

const keyPartitioner = MemoizedDefaultPartitioner();
const metadataByCount = new Map<number, PartitionMetadata[]>();

/** The partition Kafka's producers choose for `key` among `partitionCount` (for logs that are not Kafka). */
export function partitionOfKey(key: Buffer | string, partitionCount: number): number {
  let partitionMetadata = metadataByCount.get(partitionCount);
  if (!partitionMetadata) {
    partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    metadataByCount.set(partitionCount, partitionMetadata);
  }
  return keyPartitioner({ topic: '', partitionMetadata, message: { key, value: null } });
}

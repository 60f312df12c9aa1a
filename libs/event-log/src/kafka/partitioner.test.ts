import { randomUUID } from 'node:crypto';
import { Partitioners, type PartitionerArgs, type PartitionMetadata } from 'kafkajs';
import { MemoizedDefaultPartitioner, partitionOfKey } from './partitioner';

const metadata = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));

const args = (key: string, count: number): PartitionerArgs => ({
  topic: 'clicks',
  partitionMetadata: metadata(count),
  message: { key, value: 'x' },
});

describe('MemoizedDefaultPartitioner', () => {
  it('chooses the partition Kafka’s default partitioner chooses, on first sight and when remembered', () => {
    const memoized = MemoizedDefaultPartitioner();
    const reference = Partitioners.DefaultPartitioner();
    const keys = Array.from({ length: 500 }, () => randomUUID());
    for (const count of [3, 6, 12, 6]) {
      for (const key of [...keys, ...keys]) {
        expect(memoized(args(key, count))).toBe(reference(args(key, count)));
      }
    }
  });

  it('honours an explicit partition', () => {
    const memoized = MemoizedDefaultPartitioner();
    expect(memoized({ ...args('k', 6), message: { key: 'k', value: 'x', partition: 4 } })).toBe(4);
  });
});

describe('partitionOfKey', () => {
  it('is the partition Kafka’s default partitioner chooses for the key', () => {
    const reference = Partitioners.DefaultPartitioner();
    for (const count of [1, 3, 12]) {
      for (const key of Array.from({ length: 200 }, () => randomUUID())) {
        expect(partitionOfKey(key, count)).toBe(reference(args(key, count)));
        expect(partitionOfKey(Buffer.from(key), count)).toBe(reference(args(key, count)));
      }
    }
  });
});

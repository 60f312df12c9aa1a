import { randomUUID } from 'node:crypto';
import { Partitioners, type PartitionerArgs, type PartitionMetadata } from 'kafkajs';
import { MemoizedDefaultPartitioner } from './partitioner';

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

import type { Message, RecordMetadata } from 'kafkajs';
import { recordPartitions, unacknowledgedRecords } from './unacknowledged-records';

const message = (key: string): Message => ({ key, value: key });
const ack = (topicName: string, partition: number, errorCode = 0): RecordMetadata => ({
  topicName,
  partition,
  errorCode,
});

describe('unacknowledgedRecords', () => {
  const [a, b, c] = [message('a'), message('b'), message('c')];
  const chosen = new Map<Message, number>([
    [a, 0],
    [b, 1],
    [c, 2],
  ]);
  const partitionOf = (m: Message) => chosen.get(m);

  it('given every partition acknowledged, leaves nothing to resend', () => {
    expect(unacknowledgedRecords('t', [a, b, c], [ack('t', 0), ack('t', 1), ack('t', 2)], partitionOf)).toEqual([]);
  });

  it('given a send that answered for some partitions only, resends the records of the others', () => {
    // kafkajs's retry skipped partition 2: its new leader had answered for partitions 0 and 1 already.
    expect(unacknowledgedRecords('t', [a, b, c], [ack('t', 0), ack('t', 1)], partitionOf)).toEqual([c]);
  });

  it('given an answer with an error code or for another topic, does not count it', () => {
    expect(unacknowledgedRecords('t', [a, b], [ack('t', 0, 6), ack('u', 1)], partitionOf)).toEqual([a, b]);
  });

  it('given a record the partitioner never saw (no partitions in the metadata), resends it', () => {
    expect(unacknowledgedRecords('t', [message('x')], [], partitionOf)).toHaveLength(1);
  });
});

describe('recordPartitions', () => {
  it('remembers the inner partitioner’s choice for each message object', () => {
    const recorder = recordPartitions(() => (args) => String(args.message.key).length);
    const partition = recorder.createPartitioner();
    const short = message('ab');
    const long = message('abcd');
    const args = (m: Message) => ({ topic: 't', partitionMetadata: [], message: m });
    expect(partition(args(short))).toBe(2);
    expect(partition(args(long))).toBe(4);
    expect(recorder.partitionOf(short)).toBe(2);
    expect(recorder.partitionOf(long)).toBe(4);
    expect(recorder.partitionOf(message('ab'))).toBeUndefined();
  });
});

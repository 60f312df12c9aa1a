import { partitionOfKey } from '../kafka/partitioner';
import type { LogProducer, OutgoingRecord, RecordHeaders } from '../log-client';
import type { EventLog } from './event-log';
import type { NewRecord } from './partition-log';

const toBuffer = (v: Buffer | string | null | undefined): Buffer | null =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');

function toHeaders(headers: RecordHeaders | undefined): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    // Kafka allows repeated headers; none of ours repeat, so the last one is kept.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = toBuffer(last)!;
  }
  return out;
}

const toRecord = (record: OutgoingRecord): NewRecord => ({
  key: toBuffer(record.key),
  value: toBuffer(record.value),
  headers: toHeaders(record.headers),
});

/**
 * Appends as a Kafka producer would: a keyed record to the partition the Java
 * client chooses (murmur2), keyless ones spread round-robin. Each partition's
 * records are flushed to disk before the append resolves.
 */
export function embeddedProducer(log: EventLog): LogProducer {
  let nextKeyless = 0;
  return {
    connect: async () => undefined,
    disconnect: async () => undefined,
    async append(topic, records) {
      const partitionCount = log.partitions(topic).length;
      const byPartition = new Map<number, NewRecord[]>();
      for (const record of records) {
        const partition =
          record.key === null ? nextKeyless++ % partitionCount : partitionOfKey(record.key, partitionCount);
        const list = byPartition.get(partition) ?? [];
        list.push(toRecord(record));
        byPartition.set(partition, list);
      }
      await Promise.all([...byPartition].map(([partition, list]) => log.append(topic, partition, list)));
    },
  };
}
